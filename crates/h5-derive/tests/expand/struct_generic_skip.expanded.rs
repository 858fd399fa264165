#[allow(non_upper_case_globals, unused_qualifications, clippy::all)]
const _: () = {
    #[automatically_derived]
    impl<T, U: Clone> my_h5::__private::H5Type for Reading<T, U>
    where
        T: Copy,
        T: my_h5::__private::H5Type,
        [T; 4]: my_h5::__private::H5Type,
        Option<U>: ::core::default::Default,
    {
        const IS_POD: bool = true && <T as my_h5::__private::H5Type>::IS_POD
            && <[T; 4] as my_h5::__private::H5Type>::IS_POD
            && <u64 as my_h5::__private::H5Type>::IS_POD;
        fn h5_type() -> my_h5::__private::Datatype {
            my_h5::__private::compound(
                "Reading",
                ::core::mem::size_of::<Self>(),
                [
                    (
                        "value",
                        ::core::mem::offset_of!(Self, value),
                        <T as my_h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "history",
                        ::core::mem::offset_of!(Self, history),
                        <[T; 4] as my_h5::__private::H5Type>::h5_type(),
                    ),
                    (
                        "id",
                        ::core::mem::offset_of!(Self, id),
                        <u64 as my_h5::__private::H5Type>::h5_type(),
                    ),
                ],
            )
        }
        fn encode(
            &self,
            __out: &mut [u8],
            __heap: &mut my_h5::__private::VarLenHeap,
        ) -> my_h5::__private::Result<()> {
            <T as my_h5::__private::H5Type>::encode(
                &self.value,
                my_h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, value),
                    ::core::mem::size_of::<T>(),
                )?,
                __heap,
            )?;
            <[T; 4] as my_h5::__private::H5Type>::encode(
                &self.history,
                my_h5::__private::field_mut(
                    __out,
                    ::core::mem::offset_of!(Self, history),
                    ::core::mem::size_of::<[T; 4]>(),
                )?,
                __heap,
            )?;
            <u64 as my_h5::__private::H5Type>::encode(
                &self.id,
                my_h5::__private::field_mut(
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
            __heap: &my_h5::__private::VarLenHeap,
        ) -> my_h5::__private::Result<Self> {
            ::core::result::Result::Ok(Self {
                value: <T as my_h5::__private::H5Type>::decode(
                    my_h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, value),
                        ::core::mem::size_of::<T>(),
                    )?,
                    __heap,
                )?,
                history: <[T; 4] as my_h5::__private::H5Type>::decode(
                    my_h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, history),
                        ::core::mem::size_of::<[T; 4]>(),
                    )?,
                    __heap,
                )?,
                cache: ::core::default::Default::default(),
                id: <u64 as my_h5::__private::H5Type>::decode(
                    my_h5::__private::field(
                        __bytes,
                        ::core::mem::offset_of!(Self, id),
                        ::core::mem::size_of::<u64>(),
                    )?,
                    __heap,
                )?,
            })
        }
    }
};
