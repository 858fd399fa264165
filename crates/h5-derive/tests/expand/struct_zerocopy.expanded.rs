#[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl ::h5::__private::H5Type for Point
    where
        Point: ::h5::__private::zerocopy::FromBytes
            + ::h5::__private::zerocopy::IntoBytes
            + ::h5::__private::zerocopy::Immutable,
    {
        const IS_POD: bool = true && <f64 as ::h5::__private::H5Type>::IS_POD
            && <f64 as ::h5::__private::H5Type>::IS_POD
            && <u64 as ::h5::__private::H5Type>::IS_POD;
        fn h5_type() -> ::h5::__private::Datatype {
            ::h5::__private::compound(
                "Point",
                ::core::mem::size_of::<Self>(),
                [
                    (
                        "x",
                        ::core::mem::offset_of!(Self, x),
                        <f64 as ::h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "y",
                        ::core::mem::offset_of!(Self, y),
                        <f64 as ::h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "id",
                        ::core::mem::offset_of!(Self, id),
                        <u64 as ::h5::__private::H5Type>::h5_type(),
                    ),
                ],
            )
        }
        fn encode(
            &self,
            __out: &mut [u8],
            __heap: &mut ::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<()> {
            <f64 as ::h5::__private::H5Type>::encode(
                &self.x,
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, x),
                    ::core::mem::size_of::<f64>(),
                )?,
                __heap,
            )?;
            <f64 as ::h5::__private::H5Type>::encode(
                &self.y,
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, y),
                    ::core::mem::size_of::<f64>(),
                )?,
                __heap,
            )?;
            <u64 as ::h5::__private::H5Type>::encode(
                &self.id,
                ::h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, id),
                    ::core::mem::size_of::<u64>(),
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
                x: <f64 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, x),
                        ::core::mem::size_of::<f64>(),
                    )?,
                    __heap,
                )?,
                y: <f64 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, y),
                        ::core::mem::size_of::<f64>(),
                    )?,
                    __heap,
                )?,
                id: <u64 as ::h5::__private::H5Type>::decode(
                    ::h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, id),
                        ::core::mem::size_of::<u64>(),
                    )?,
                    __heap,
                )?,
            })
        }
        fn image_bytes_mut(__values: &mut [Self]) -> ::core::option::Option<&mut [u8]> {
            ::core::option::Option::Some(
                ::h5::__private::zerocopy::IntoBytes::as_mut_bytes(__values),
            )
        }
        fn image_bytes(__values: &[Self]) -> ::core::option::Option<&[u8]> {
            ::core::option::Option::Some(
                ::h5::__private::zerocopy::IntoBytes::as_bytes(__values),
            )
        }
        fn zeroed_vec(__n: usize) -> ::core::option::Option<::h5::__private::Vec<Self>> {
            ::core::result::Result::ok(
                ::h5::__private::zerocopy::FromZeros::new_vec_zeroed(__n),
            )
        }
    }
};
