#[repr(i16)]
enum Level {
    Low = -1,
    #[h5(name = "MID")]
    Mid,
    High = 10,
}
