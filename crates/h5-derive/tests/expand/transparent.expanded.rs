#[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl<T> ::h5::__private::H5Type for Meters<T>
    where
        T: ::h5::__private::H5Type,
        core::marker::PhantomData<T>: ::core::default::Default,
    {
        const IS_POD: bool = <T as ::h5::__private::H5Type>::IS_POD;
        fn h5_type() -> ::h5::__private::Datatype {
            <T as ::h5::__private::H5Type>::h5_type()
        }
        fn h5_type_packed() -> ::h5::__private::Datatype {
            <T as ::h5::__private::H5Type>::h5_type_packed()
        }
        fn encode(
            &self,
            __out: &mut [u8],
            __heap: &mut ::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<()> {
            <T as ::h5::__private::H5Type>::encode(&self.0, __out, __heap)
        }
        fn decode(
            __bytes: &[u8],
            __heap: &::h5::__private::VarLenHeap,
        ) -> ::h5::__private::Result<Self> {
            ::core::result::Result::Ok(Self {
                0: <T as ::h5::__private::H5Type>::decode(__bytes, __heap)?,
                1: ::core::default::Default::default(),
            })
        }
    }
};
