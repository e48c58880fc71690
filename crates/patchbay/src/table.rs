//! Look-up tables computed by a `const fn`, kept out of the WebAssembly
//! module: natively a `static` in the binary, as usual; in WebAssembly
//! computed on first use, since the module is a download and such tables
//! (the CRC's 16 KB, base64's 8 KB) hardly compress. Filling one takes a
//! few thousand steps, once.

/// `table!(fn name() -> &Type = const_fn());` defines `name()`, the table.
/// Callers fetch it once per call of their own (in WebAssembly each fetch
/// checks that it is filled) and pass it down.
macro_rules! table {
    ($(#[$meta:meta])* $vis:vis fn $name:ident() -> &$ty:ty = $init:expr;) => {
        $(#[$meta])*
        #[inline(always)]
        $vis fn $name() -> &'static $ty {
            #[cfg(not(target_arch = "wasm32"))]
            static TABLE: $ty = $init;
            #[cfg(target_arch = "wasm32")]
            static TABLE: std::sync::LazyLock<$ty> = std::sync::LazyLock::new(|| $init);
            &TABLE
        }
    };
}

pub(crate) use table;
