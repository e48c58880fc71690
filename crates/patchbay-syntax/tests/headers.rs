//! Outlines of real headers installed by Debian packages: libstdc++'s
//! (`libstdc++-12-dev`), glibc's (`libc6-dev`) and Linux's UAPI headers
//! (`linux-libc-dev`); `scripts/setup.sh headers` installs them. A header
//! that is absent is skipped with a printed reason.
//!
//! Each header's count of classes, structs and unions was established
//! without the outline, by a regular-expression scan of the header with
//! its comments removed: definitions `(class|struct|union) NAME ... {`
//! (not `enum class`; a base clause or template arguments may sit between
//! the name and the brace, no `;`) plus `typedef (struct|union) {`. The
//! outline must list at least that many symbols of those kinds. Most of
//! the libstdc++ headers here have their whole body in the `#else` of
//! `#if __cplusplus < 201103L`: an outline of the first branches alone
//! lists nothing for them.

use patchbay_syntax::{outline, Kind, Language};
use std::path::Path;

/// (header, language, classes + structs + unions by the scan, a class,
/// struct or union the outline must hold).
const HEADERS: &[(&str, Language, usize, &str)] = &[
    // libstdc++ 12: bodies in the `#else` of `#if __cplusplus < 201103L`,
    // some also behind `#ifdef _GLIBCXX_HAS_GTHREADS`.
    ("c++/12/array", Language::Cpp, 7, "std::array"),
    ("c++/12/tuple", Language::Cpp, 34, "std::tuple"),
    (
        "c++/12/type_traits",
        Language::Cpp,
        394,
        "std::integral_constant",
    ),
    (
        "c++/12/mutex",
        Language::Cpp,
        16,
        "std::recursive_timed_mutex",
    ),
    (
        "c++/12/condition_variable",
        Language::Cpp,
        4,
        "std::condition_variable",
    ),
    ("c++/12/thread", Language::Cpp, 1, "std::jthread"),
    ("c++/12/system_error", Language::Cpp, 9, "std::error_code"),
    ("c++/12/future", Language::Cpp, 39, "std::shared_future"),
    (
        "c++/12/bits/unique_lock.h",
        Language::Cpp,
        1,
        "std::unique_lock",
    ),
    (
        "c++/12/bits/std_function.h",
        Language::Cpp,
        11,
        "std::function",
    ),
    (
        "c++/12/bits/allocated_ptr.h",
        Language::Cpp,
        1,
        "std::__allocated_ptr",
    ),
    (
        "c++/12/bits/nested_exception.h",
        Language::Cpp,
        2,
        "std::nested_exception",
    ),
    ("c++/12/bits/stl_vector.h", Language::Cpp, 12, "std::vector"),
    (
        "c++/12/bits/shared_ptr_base.h",
        Language::Cpp,
        47,
        "std::__shared_ptr",
    ),
    // glibc.
    ("elf.h", Language::C, 39, "Elf64_Ehdr"),
    ("link.h", Language::C, 4, "link_map"),
    ("netinet/in.h", Language::C, 14, "sockaddr_in6"),
    ("netinet/tcp.h", Language::C, 7, "tcp_info"),
    ("regex.h", Language::C, 3, "re_pattern_buffer"),
    ("stdlib.h", Language::C, 5, "random_data"),
    ("netdb.h", Language::C, 5, "addrinfo"),
    ("argp.h", Language::C, 4, "argp_option"),
    // Linux UAPI.
    ("linux/perf_event.h", Language::C, 9, "perf_event_attr"),
    ("linux/bpf.h", Language::C, 43, "bpf_insn"),
    ("linux/input.h", Language::C, 14, "input_event"),
    ("linux/ethtool.h", Language::C, 42, "ethtool_cmd"),
    ("linux/videodev2.h", Language::C, 76, "v4l2_format"),
    ("linux/usb/ch9.h", Language::C, 33, "usb_device_descriptor"),
    ("linux/fuse.h", Language::C, 65, "fuse_attr"),
    ("linux/io_uring.h", Language::C, 21, "io_uring_sqe"),
];

const INCLUDE: &str = "/usr/include";

fn is_type(k: Kind) -> bool {
    matches!(k, Kind::Class | Kind::Struct | Kind::Union)
}

#[test]
fn real_headers_reach_their_independent_counts() {
    let mut short = vec![];
    let mut tested = 0;
    for &(rel, lang, want, name) in HEADERS {
        let path = Path::new(INCLUDE).join(rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            println!("skipped {rel}: not installed (scripts/setup.sh headers)");
            continue;
        };
        tested += 1;
        let o = outline(&text, lang).unwrap();
        let types = o.symbols.iter().filter(|s| is_type(s.kind)).count();
        // A specialisation is named with its arguments: `std::function<...>`.
        let has = o.symbols.iter().any(|s| {
            is_type(s.kind) && (s.qualified == name || s.qualified.starts_with(&format!("{name}<")))
        });
        println!(
            "{rel}: {types} classes/structs/unions (at least {want}), {} symbols",
            o.symbols.len()
        );
        if types < want || !has {
            short.push(format!("{rel}: {types} of {want}, `{name}` listed: {has}"));
        }
    }
    println!("{tested} of {} headers tested", HEADERS.len());
    assert!(short.is_empty(), "{}", short.join("\n"));
}

/// Whether `text` defines a class or struct, by a scan independent of the
/// outline: with comments removed, the word `class` or `struct`, a name,
/// then a `{` before any `;`, `(` or `)`.
fn defines_a_class(text: &str) -> bool {
    let code = without_comments(text);
    let words: Vec<(usize, &str)> = code
        .match_indices(|c: char| !(c.is_alphanumeric() || c == '_'))
        .scan(0, |start, (i, _)| {
            let w = (*start, &code[*start..i]);
            *start = i + 1;
            Some(w)
        })
        .filter(|(_, w)| !w.is_empty())
        .collect();
    words.windows(2).any(|w| {
        let ((_, kw), (at, name)) = (w[0], w[1]);
        let named = name.starts_with(|c: char| c.is_alphabetic() || c == '_');
        let enum_class = code[..w[0].0].trim_end().ends_with("enum");
        (kw == "class" || kw == "struct") && named && !enum_class && {
            let rest = &code[at + name.len()..];
            let end = rest.find([';', '{', '(', ')']).unwrap_or(rest.len());
            rest[end..].starts_with('{')
        }
    })
}

/// `text` with its `/* */` and `//` comments blanked (a rough cut:
/// string literals are not looked at, which headers do not need).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('/') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = if tail.starts_with("/*") {
            tail.find("*/").map_or(tail.len(), |e| e + 2)
        } else if tail.starts_with("//") {
            tail.find('\n').unwrap_or(tail.len())
        } else {
            1
        };
        out.push_str(if end == 1 { "/" } else { " " });
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Every libstdc++ 12 header (the folder and its `bits/`) that defines a
/// class or struct gets symbols, and every empty outline of a file that is
/// not blank says why. An outline of the first branches alone is empty for
/// 23 of the 164 such headers here.
#[test]
fn no_libstdcxx_header_with_a_class_has_an_empty_outline() {
    let root = Path::new(INCLUDE).join("c++/12");
    let Ok(top) = std::fs::read_dir(&root) else {
        println!(
            "skipped: {} is absent (scripts/setup.sh headers)",
            root.display()
        );
        return;
    };
    let bits = std::fs::read_dir(root.join("bits")).into_iter().flatten();
    let mut paths: Vec<_> = top.chain(bits).flatten().map(|e| e.path()).collect();
    paths.retain(|p| p.is_file());
    paths.sort();
    let (mut with_class, mut empty, mut silent) = (0, vec![], vec![]);
    for p in &paths {
        let Ok(text) = std::fs::read_to_string(p) else {
            continue;
        };
        let o = outline(&text, Language::Cpp).unwrap();
        let name = p.strip_prefix(&root).unwrap().display().to_string();
        if o.symbols.is_empty() && !text.trim().is_empty() && o.notes.is_empty() {
            silent.push(name.clone());
        }
        if defines_a_class(&text) {
            with_class += 1;
            if o.symbols.is_empty() {
                empty.push(name);
            }
        }
    }
    println!(
        "{} headers, {with_class} define a class or struct, {} of them with an empty outline",
        paths.len(),
        empty.len()
    );
    assert!(with_class > 100, "{with_class}");
    assert!(empty.is_empty(), "empty outlines: {empty:?}");
    assert!(silent.is_empty(), "empty without a note: {silent:?}");
}

#[test]
fn the_independent_scan_tells_definitions_from_declarations() {
    assert!(defines_a_class(
        "namespace std {\n  class mutex : public __mutex_base\n  {\n  };\n}\n"
    ));
    assert!(defines_a_class(
        "template<typename _Tp>\n  struct hash<_Tp*> {};\n"
    ));
    assert!(!defines_a_class(
        "class mutex;\nstruct tm;\nenum class cv_status { no_timeout };\n"
    ));
    assert!(!defines_a_class(
        "/* class hidden { } */\n// struct gone {\nint f(struct stat *s) { }\n"
    ));
}
