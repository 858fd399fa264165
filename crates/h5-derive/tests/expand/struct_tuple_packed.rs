#[repr(C, packed)]
struct Pair(u8, u32);
