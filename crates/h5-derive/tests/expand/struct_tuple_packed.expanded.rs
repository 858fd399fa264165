#[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl ::h5::__private::H5Type for Pair {
        const IS_POD: bool = true && <u8 as ::h5::__private::H5Type>::IS_POD
            && <u32 as ::h5::__private::H5Type>::IS_POD;
        fn h5_type() -> ::h5::__private::Datatype {
            ::h5::__private::compound(
                "Pair",
                ::core::mem::size_of::<Self>(),
                [
                    (
                        "0",
                        ::core::mem::offset_of!(Self, 0),
                        <u8 as ::h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "1",
                        ::core::mem::offset_of!(Self, 1),
                        <u32 as ::h5::__private::H5Type>::h5_type(),
                    ),
                ],
            )
        }
        fn encode(
            &self,
            __out: &mut [u8],
            __heap: &mut ::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<()> {
            <u8 as ::h5::__private::H5Type>::encode(
                &{ self.0 },
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, 0),
                    ::core::mem::size_of::<u8>(),
                )?,
                __heap,
            )?;
            <u32 as ::h5::__private::H5Type>::encode(
                &{ self.1 },
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, 1),
                    ::core::mem::size_of::<u32>(),
                )?,
                __heap,
            )?;
            ::core::result::Result::Ok(())
        }
        fn decode(
            __bytes: &[u8],
            __heap: &::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<Self> {
            ::core::result::Result::Ok(Self {
                0: <u8 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, 0),
                        ::core::mem::size_of::<u8>(),
                    )?,
                    __heap,
                )?,
                1: <u32 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, 1),
                        ::core::mem::size_of::<u32>(),
                    )?,
                    __heap,
                )?,
            })
        }
    }
    const _: bool = <Pair as ::h5::__private::H5Type>::IS_POD;
};
