#[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl ::h5::__private::H5Type for Level {
        const IS_POD: bool = true;
        fn h5_type() -> ::h5::__private::Datatype {
            ::h5::__private::enumeration(
                "Level",
                [
                    ("Low", Self::Low as i16),
                    ("MID", Self::Mid as i16),
                    ("High", Self::High as i16),
                ],
            )
        }
        fn encode(
            &self,
            __out: &mut [u8],
            __heap: &mut ::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<()> {
            let __v: i16 = match self {
                Self::Low => Self::Low as i16,
                Self::Mid => Self::Mid as i16,
                Self::High => Self::High as i16,
            };
            <i16 as ::h5::__private::H5Type>::encode(&__v, __out, __heap)
        }
        fn decode(
            __bytes: &[u8],
            __heap: &::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<Self> {
            let __v = <i16 as ::h5::__private::H5Type>::decode(__bytes, __heap)?;
            if __v == Self::Low as i16 {
                return ::core::result::Result::Ok(Self::Low);
            }
            if __v == Self::Mid as i16 {
                return ::core::result::Result::Ok(Self::Mid);
            }
            if __v == Self::High as i16 {
                return ::core::result::Result::Ok(Self::High);
            }
            ::core::result::Result::Err(::h5::__private::unknown_variant("Level", __v))
        }
    }
    const _: bool = <Level as ::h5::__private::H5Type>::IS_POD;
};
