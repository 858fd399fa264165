#[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl ::h5::__private::H5Type for S1 {
        const IS_POD: bool = true && <i32 as ::h5::__private::H5Type>::IS_POD
            && <i8 as ::h5::__private::H5Type>::IS_POD
            && <f64 as ::h5::__private::H5Type>::IS_POD;
        fn h5_type() -> ::h5::__private::Datatype {
            ::h5::__private::compound(
                "S1",
                ::core::mem::size_of::<Self>(),
                [
                    (
                        "a",
                        ::core::mem::offset_of!(Self, a),
                        <i32 as ::h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "b",
                        ::core::mem::offset_of!(Self, b),
                        <i8 as ::h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "c_value",
                        ::core::mem::offset_of!(Self, c),
                        <f64 as ::h5::__private::H5Type>::h5_type(),
                    ),
                ],
            )
        }
        fn encode(
            &self,
            __out: &mut [u8],
            __heap: &mut ::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<()> {
            <i32 as ::h5::__private::H5Type>::encode(
                &self.a,
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, a),
                    ::core::mem::size_of::<i32>(),
                )?,
                __heap,
            )?;
            <i8 as ::h5::__private::H5Type>::encode(
                &self.b,
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, b),
                    ::core::mem::size_of::<i8>(),
                )?,
                __heap,
            )?;
            <f64 as ::h5::__private::H5Type>::encode(
                &self.c,
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, c),
                    ::core::mem::size_of::<f64>(),
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
                a: <i32 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, a),
                        ::core::mem::size_of::<i32>(),
                    )?,
                    __heap,
                )?,
                b: <i8 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, b),
                        ::core::mem::size_of::<i8>(),
                    )?,
                    __heap,
                )?,
                c: <f64 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, c),
                        ::core::mem::size_of::<f64>(),
                    )?,
                    __heap,
                )?,
            })
        }
    }
    const _: bool = <S1 as ::h5::__private::H5Type>::IS_POD;
};
