//! On disk, all or nothing: the write layer under faults. A rename that
//! fails (injected, an immutable or append-only file, a sticky folder, a
//! read-only mount), a run killed at each step of a commit, owner, group
//! and extended attributes, two runs at once, an appender, moves that leave
//! the root. Each test runs the built (debug) binary, whose test hooks
//! (`PATCHBAY_TEST_*`, see `commit.rs`) only debug builds honour.

mod common;

use common::{apply_root, assert_stderr_has, block, patchbay_env, show, stderr, Sandbox};
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn apply(sb: &Sandbox, reply: &str, env: &[(&str, &str)]) -> Output {
    apply_root(&sb.dir, reply, &["--json"], env)
}

/// Three files edited, one created and one deleted by one reply.
fn three_files(sb: &Sandbox) {
    for n in ["a", "b", "c"] {
        sb.write(&format!("root/{n}.txt"), format!("{n} old\n"));
    }
    sb.write("root/sub/d.txt", "d old\n");
    sb.write("root/gone.txt", "gone\n");
    let mut r = String::from("*** Begin Patch\n");
    for n in ["a", "b", "c", "sub/d"] {
        let k = &n[n.len() - 1..];
        r += &format!("*** Update File: {n}.txt\n@@\n-{k} old\n+{k} new\n");
    }
    r += "*** Add File: new/made.txt\n+made\n*** Delete File: gone.txt\n*** End Patch\n";
    sb.write("reply.txt", r);
}

/// Asserts that `a`, `b`, `c` and `sub/d` hold their `state` ("old" or
/// "new") line.
fn assert_lettered(sb: &Sandbox, state: &str, why: &str) {
    for n in ["a", "b", "c", "sub/d"] {
        let k = &n[n.len() - 1..];
        assert_eq!(
            sb.read(&format!("root/{n}.txt")),
            format!("{k} {state}\n"),
            "{why}"
        );
    }
}

fn assert_old(sb: &Sandbox, why: &str) {
    assert_lettered(sb, "old", why);
    assert_eq!(sb.read("root/gone.txt"), "gone\n", "{why}");
    assert_eq!(
        sb.listing("root"),
        ["a.txt", "b.txt", "c.txt", "gone.txt", "sub", "sub/d.txt"],
        "{why}: no temporary, backup, journal or new folder left"
    );
}

fn assert_new(sb: &Sandbox, why: &str) {
    assert_lettered(sb, "new", why);
    assert_eq!(sb.read("root/new/made.txt"), "made\n", "{why}");
    assert_eq!(
        sb.listing("root"),
        [
            "a.txt",
            "b.txt",
            "c.txt",
            "new",
            "new/made.txt",
            "sub",
            "sub/d.txt"
        ],
        "{why}"
    );
}

/// The Nth rename or deletion fails: every earlier one is taken back, the
/// message says so, exit 2. Before the journal: "already changed: a.txt".
#[test]
fn a_failing_rename_rolls_back_every_file() {
    for n in 1..=6 {
        let sb = Sandbox::new("failrename");
        three_files(&sb);
        let o = apply(
            &sb,
            "reply.txt",
            &[("PATCHBAY_TEST_FAIL_RENAME", &n.to_string())],
        );
        assert_eq!(o.status.code(), Some(2), "{}", show(&o));
        let err = stderr(&o);
        assert!(
            err.contains("injected failure") && err.contains("rolled back, nothing was changed"),
            "{err}"
        );
        if n > 1 {
            assert!(err.contains("restored a.txt"), "rename {n}: {err}");
        }
        assert_old(&sb, &format!("rename {n} failed"));
        // And the same reply applies once the fault is gone.
        let o = apply(&sb, "reply.txt", &[]);
        assert_eq!(o.status.code(), Some(0), "{}", show(&o));
        assert_new(&sb, "after the fault");
    }
}

/// Whether `chattr +i` works here (a container may lack the capability).
fn chattr_works(sb: &Sandbox) -> bool {
    let p = sb.write("probe", "p");
    let ok = Command::new("chattr")
        .arg("+i")
        .arg(&p)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        let _ = Command::new("chattr").arg("-i").arg(&p).status();
    }
    let _ = fs::remove_file(p);
    ok
}

/// Takes the flag off again even when an assertion fails.
struct Flag(std::path::PathBuf, &'static str);
impl Drop for Flag {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg(self.1).arg(&self.0).status();
    }
}

/// An immutable or append-only file among the targets: refused before the
/// first rename, nothing changed. Runs where `chattr` works (root with
/// CAP_LINUX_IMMUTABLE); `a_failing_rename_rolls_back_every_file` and the
/// sticky-folder test cover the same path everywhere.
#[test]
fn an_immutable_or_append_only_target_changes_nothing() {
    let sb = Sandbox::new("chattr");
    if !chattr_works(&sb) {
        eprintln!("skipped: chattr +i is not allowed here");
        return;
    }
    for (flag, word) in [("+i", "immutable"), ("+a", "append-only")] {
        for target in ["root/b.txt", "root/gone.txt", "root/sub"] {
            let sb = Sandbox::new("chattr");
            three_files(&sb);
            let p = sb.path(target);
            let off = if flag == "+i" { "-i" } else { "-a" };
            assert!(Command::new("chattr")
                .arg(flag)
                .arg(&p)
                .status()
                .unwrap()
                .success());
            let guard = Flag(p, off);
            let o = apply(&sb, "reply.txt", &[]);
            assert_eq!(o.status.code(), Some(2), "{}", show(&o));
            let err = stderr(&o);
            assert!(err.contains(word), "{flag} {target}: {err}");
            drop(guard);
            assert_old(&sb, &format!("{flag} on {target}"));
        }
    }
}

fn is_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    })
}

/// Running as another user (nobody): a root-owned file in a sticky
/// world-writable folder (its temporary can be made, the rename over it
/// cannot), and a root-owned folder without write permission for nobody.
/// Checked before the first rename; nothing changed. As a non-root user,
/// a folder without write permission.
#[test]
fn a_target_the_user_may_not_replace_changes_nothing() {
    let modes: &[u32] = if is_root() {
        &[0o1777, 0o755]
    } else {
        &[0o555]
    };
    for &mode in modes {
        let sb = Sandbox::new("perm");
        three_files(&sb);
        let o = run_as_other_user(&sb, mode);
        assert_eq!(o.status.code(), Some(2), "{mode:o}: {}", show(&o));
        let err = stderr(&o);
        assert!(err.contains("sub/d.txt"), "{mode:o}: {err}");
        assert_old(&sb, &format!("folder mode {mode:o}"));
    }
}

/// Runs the reply with `root/sub` at `mode`: as nobody (owning everything
/// else) when root, as the user otherwise. Puts the mode back after.
fn run_as_other_user(sb: &Sandbox, mode: u32) -> Output {
    use std::os::unix::fs::{chown, PermissionsExt};
    use std::os::unix::process::CommandExt;
    let sub = sb.path("root/sub");
    let mut c = Command::new(env!("CARGO_BIN_EXE_patchbay"));
    c.args(["apply", "--edits", "reply.txt", "--root", "root"])
        .current_dir(&sb.dir);
    if is_root() {
        for e in sb.listing("") {
            let p = sb.path(&e);
            if !p.starts_with(&sub) {
                chown(&p, Some(65534), Some(65534)).unwrap();
            }
        }
        chown(&sb.dir, Some(65534), Some(65534)).unwrap();
        c.uid(65534).gid(65534);
    }
    fs::set_permissions(&sub, fs::Permissions::from_mode(mode)).unwrap();
    let o = c.output().unwrap();
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o755)).unwrap();
    o
}

/// A read-only bind mount over one folder (where `mount` is allowed).
#[test]
fn a_read_only_mount_changes_nothing() {
    let sb = Sandbox::new("romount");
    three_files(&sb);
    let sub = sb.path("root/sub");
    let mount = |args: &[&str]| {
        Command::new("mount")
            .args(args)
            .arg(&sub)
            .arg(&sub)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !mount(&["--bind"]) {
        eprintln!("skipped: bind mounts are not allowed here");
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _guard = Unmount(sub.clone());
    let ro = Command::new("mount")
        .args(["-o", "remount,ro,bind"])
        .arg(&sub)
        .status()
        .unwrap();
    assert!(ro.success());
    let o = apply(&sb, "reply.txt", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    assert_stderr_has(&o, "sub/d.txt");
    assert_old(&sb, "a read-only mount");
}

/// A run that dies (abort: no cleanup, like a kill) at each step of the
/// commit: the next writing run rolls it back, or finishes its cleanup when
/// it was complete, says so on stderr, and leaves no temporary.
#[test]
fn a_commit_killed_at_any_step_is_recovered_by_the_next_run() {
    let points = [
        "journal", "staged", "rename:1", "rename:3", "rename:5", "rename:6", "done",
    ];
    for point in points {
        let sb = Sandbox::new("crash");
        three_files(&sb);
        let o = apply(&sb, "reply.txt", &[("PATCHBAY_TEST_CRASH", point)]);
        assert_eq!(o.status.code(), None, "{point}: it must die: {}", show(&o));
        assert!(sb.path("root/.patchbay-journal").exists(), "{point}");
        // The next run (another reply, on another file) recovers first.
        sb.write("root/other.txt", "x\n");
        sb.write("other.txt", block("other.txt", "x\n", "y\n"));
        let o = apply(&sb, "other.txt", &[]);
        assert_eq!(o.status.code(), Some(0), "{point}: {}", show(&o));
        let err = stderr(&o);
        assert_eq!(sb.read("root/other.txt"), "y\n");
        fs::remove_file(sb.path("root/other.txt")).unwrap();
        if point == "done" {
            assert!(err.contains("finished the cleanup"), "{err}");
            assert_new(&sb, point);
        } else {
            assert!(
                err.contains("rolled back an interrupted commit"),
                "{point}: {err}"
            );
            assert_old(&sb, point);
        }
    }
}

/// A commit that writes one existing file has no journal (its rename is
/// atomic): killed at any step it leaves that file old or new, whole, and
/// the next run in the folder sweeps its temporary and backup; a failing
/// rename changes nothing and leaves nothing.
#[test]
fn a_one_file_commit_killed_or_failing_leaves_the_file_whole() {
    let cases = [
        ("PATCHBAY_TEST_CRASH", "journal", "a\n"),
        ("PATCHBAY_TEST_CRASH", "staged", "a\n"),
        ("PATCHBAY_TEST_CRASH", "rename:1", "b\n"),
        ("PATCHBAY_TEST_CRASH", "done", "b\n"),
        ("PATCHBAY_TEST_FAIL_RENAME", "1", "a\n"),
    ];
    for (hook, point, want) in cases {
        let sb = Sandbox::new("onefile");
        sb.write("root/a.txt", "a\n");
        sb.write("reply.txt", block("a.txt", "a\n", "b\n"));
        let o = apply(&sb, "reply.txt", &[(hook, point)]);
        let code = if hook == "PATCHBAY_TEST_CRASH" {
            None
        } else {
            Some(2)
        };
        assert_eq!(o.status.code(), code, "{point}: {}", show(&o));
        assert!(!sb.path("root/.patchbay-journal").exists(), "{point}");
        assert_eq!(sb.read("root/a.txt"), want, "{point}");
        sb.write("root/other.txt", "x\n");
        sb.write("other.txt", block("other.txt", "x\n", "y\n"));
        let o = apply(&sb, "other.txt", &[]);
        assert_eq!(o.status.code(), Some(0), "{point}: {}", show(&o));
        assert_eq!(sb.read("root/a.txt"), want, "{point}");
        assert_eq!(sb.listing("root"), ["a.txt", "other.txt"], "{point}");
    }
}

/// `--dry-run` writes nothing, recovery included; it warns.
#[test]
fn a_dry_run_leaves_an_interrupted_commit_alone_and_warns() {
    let sb = Sandbox::new("crashdry");
    three_files(&sb);
    let o = apply(&sb, "reply.txt", &[("PATCHBAY_TEST_CRASH", "rename:2")]);
    assert_eq!(o.status.code(), None);
    let o = apply_root(&sb.dir, "reply.txt", &["--dry-run"], &[]);
    assert_stderr_has(&o, "interrupted commit");
    assert!(sb.path("root/.patchbay-journal").exists());
}

/// A journal shipped in a repository (or written by anything but the
/// commit it records) is never replayed and never blocks the root: it is
/// set aside and reported, and the run goes on. One names a file outside
/// the root; one is a well-formed journal of this version, with a token
/// its backup carries, but it is not the file patchbay wrote (its inode).
#[test]
fn a_journal_patchbay_did_not_write_is_set_aside_not_replayed() {
    let forged_backup = ".a.txt.patchbay-7-0011223344556677-0.orig";
    let journals = [
        "{\"patchbay_journal\":1,\"pid\":1}\n{\"target\":\"../outside.txt\",\"temp\":null,\"backup\":null}\n{\"state\":\"renaming\"}\n".to_string(),
        format!("{{\"patchbay_journal\":2,\"pid\":7,\"token\":\"0011223344556677\",\"ino\":12345}}\n{{\"target\":\"a.txt\",\"temp\":null,\"backup\":\"{forged_backup}\"}}\n{{\"state\":\"renaming\",\"staged\":[]}}\n"),
    ];
    for journal in journals {
        let sb = Sandbox::new("badjournal");
        sb.write("root/a.txt", "a\n");
        sb.write(&format!("root/{forged_backup}"), "the forger's text\n");
        sb.write("outside.txt", "keep\n");
        sb.write("root/.patchbay-journal", &journal);
        sb.write("reply.txt", block("a.txt", "a\n", "b\n"));
        let o = apply(&sb, "reply.txt", &[]);
        assert_eq!(o.status.code(), Some(0), "{}", show(&o));
        let err = stderr(&o);
        assert!(
            err.contains("not a journal patchbay wrote here") && err.contains("rm -- "),
            "{}",
            show(&o)
        );
        assert_eq!(sb.read("outside.txt"), "keep\n");
        assert_eq!(
            sb.read("root/a.txt"),
            "b\n",
            "the reply applied, nothing replayed"
        );
        assert_eq!(
            sb.read(&format!("root/{forged_backup}")),
            "the forger's text\n"
        );
        let left = sb.listing("root");
        assert_eq!(left.len(), 3, "{left:?}");
        assert!(
            left[1].starts_with(".patchbay-journal.untrusted-"),
            "{left:?}"
        );
        // And the next run is not blocked or warned again.
        sb.write("reply.txt", block("a.txt", "b\n", "c\n"));
        let o = apply(&sb, "reply.txt", &[]);
        assert_eq!(o.status.code(), Some(0), "{}", show(&o));
        assert!(o.stderr.is_empty(), "{}", show(&o));
    }
}

/// A name of 255 bytes: its temporary and backup names are hashed to fit.
#[test]
fn a_file_name_of_255_bytes_can_be_edited() {
    let sb = Sandbox::new("longname");
    let name = format!("{}.txt", "n".repeat(251));
    assert_eq!(name.len(), 255);
    sb.write(&format!("root/{name}"), "old\n");
    sb.write("reply.txt", block(&name, "old\n", "new\n"));
    let o = apply(&sb, "reply.txt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(sb.read(&format!("root/{name}")), "new\n");
    assert_eq!(sb.listing("root"), [name]);
}

/// Owner, group, mode and extended attributes survive an edit (as GNU patch
/// and rsync keep them). Owner needs root; xattrs a file system with them.
#[test]
fn owner_group_mode_and_xattrs_are_kept() {
    use std::os::unix::fs::{chown, MetadataExt, PermissionsExt};
    let sb = Sandbox::new("owner");
    let p = sb.write("root/a.txt", "old\n");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    let root = is_root();
    if root {
        chown(&p, Some(65534), Some(65534)).unwrap();
    }
    let xattr = set_xattr(&p, "user.x", b"value of x");
    if !xattr {
        eprintln!("skipped the xattr part: user.* attributes are not supported here");
    }
    sb.write("reply.txt", block("a.txt", "old\n", "new\n"));
    let o = apply(&sb, "reply.txt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(sb.read("root/a.txt"), "new\n");
    let m = fs::metadata(&p).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o640);
    if root {
        assert_eq!((m.uid(), m.gid()), (65534, 65534), "nobody:nogroup kept");
    }
    if xattr {
        assert_eq!(get_xattr(&p, "user.x").as_deref(), Some(&b"value of x"[..]));
    }
}

fn cstr(s: impl AsRef<[u8]>) -> std::ffi::CString {
    std::ffi::CString::new(s.as_ref()).unwrap()
}

fn set_xattr(p: &Path, name: &str, value: &[u8]) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (p, n) = (cstr(p.as_os_str().as_bytes()), cstr(name));
    let rc = unsafe {
        libc::setxattr(
            p.as_ptr(),
            n.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    rc == 0
}

fn get_xattr(p: &Path, name: &str) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    let (p, n) = (cstr(p.as_os_str().as_bytes()), cstr(name));
    let mut buf = vec![0u8; 256];
    let rc = unsafe { libc::getxattr(p.as_ptr(), n.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    (rc >= 0).then(|| {
        buf.truncate(rc as usize);
        buf
    })
}

/// Another process writes a target between the read and the rename: a
/// `file_changed` receipt, exit 1, nothing written, the other's bytes kept.
#[test]
fn a_file_written_during_the_apply_is_refused_as_file_changed() {
    let sb = Sandbox::new("changed");
    sb.write("root/a.txt", "a\n");
    sb.write("root/b.txt", "b\n");
    sb.write(
        "reply.txt",
        block("a.txt", "a\n", "A\n") + &block("b.txt", "b\n", "B\n"),
    );
    let o = apply(&sb, "reply.txt", &[("PATCHBAY_TEST_TOUCH", "b.txt")]);
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let codes: Vec<&str> = rep["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["edits"].as_array().unwrap())
        .filter_map(|e| e["code"].as_str())
        .collect();
    assert_eq!(codes, ["held_back", "file_changed"], "{rep}");
    assert!(
        rep["feedback"]
            .as_str()
            .unwrap()
            .contains("changed on disk"),
        "{rep}"
    );
    assert_eq!(sb.read("root/a.txt"), "a\n");
    assert_eq!(sb.read("root/b.txt"), "b\nwritten by another process\n");
    assert_eq!(sb.listing("root"), ["a.txt", "b.txt"]);
}

/// A move or rename to a symbolic link that leaves the root is
/// `path_escape`, in apply-patch and in udiff (not an internal error).
#[test]
fn a_move_to_a_link_outside_the_root_is_path_escape() {
    let sb = Sandbox::new("moveescape");
    sb.write("root/a.txt", "a\n");
    sb.write("outside/keep.txt", "k\n");
    std::os::unix::fs::symlink(sb.path("outside"), sb.path("root/out")).unwrap();
    std::os::unix::fs::symlink(sb.path("outside/new.txt"), sb.path("root/dangling")).unwrap();
    for to in ["out/x.txt", "dangling"] {
        let replies = [
            format!("*** Begin Patch\n*** Update File: a.txt\n*** Move to: {to}\n@@\n-a\n+b\n*** End Patch\n"),
            format!("diff --git a/a.txt b/{to}\nsimilarity index 100%\nrename from a.txt\nrename to {to}\n"),
        ];
        for r in replies {
            sb.write("reply.txt", &r);
            let o = apply(&sb, "reply.txt", &[]);
            assert_eq!(o.status.code(), Some(1), "{r}\n{}", show(&o));
            let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(rep.to_string().contains("path_escape"), "{r}\n{rep}");
        }
    }
    assert_eq!(sb.read("root/a.txt"), "a\n");
    assert_eq!(sb.listing("outside"), ["keep.txt"]);
}

/// A file of about `n` × 13 bytes between a first and a last line.
fn big(first: &str, n: usize, last: &str) -> String {
    let mut s = format!("{first}\n");
    s.extend((0..n).map(|i| format!("line {i:07}\n")));
    s + last + "\n"
}

/// The codes of a JSON report's receipts.
fn codes(o: &Output) -> Vec<String> {
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    let Some(files) = rep["files"].as_array() else {
        return vec![];
    };
    files
        .iter()
        .flat_map(|f| f["edits"].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e["code"].as_str().map(str::to_owned))
        .collect()
}

/// Two applies on one file at once (one edits its first line, the other its
/// last), 20 rounds: each exits 0 with its edit in the final file, or 1 with
/// `file_changed` and nothing written. Without the lock and the check,
/// both would exit 0 and one edit would be lost.
#[test]
fn two_concurrent_applies_on_one_file_lose_no_edit() {
    let sb = Sandbox::new("concurrent");
    sb.write("top.txt", block("f.txt", "top\n", "top A\n"));
    sb.write("bottom.txt", block("f.txt", "bottom\n", "bottom B\n"));
    let (mut both, mut refused) = (0, 0);
    for round in 0..20 {
        sb.write("root/f.txt", big("top", 150_000, "bottom"));
        let spawn = |reply: &str| {
            Command::new(env!("CARGO_BIN_EXE_patchbay"))
                .args(["apply", "--edits", reply, "--root", "root", "--json"])
                .current_dir(&sb.dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (spawn("top.txt"), spawn("bottom.txt"));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let now = sb.read("root/f.txt");
        for (o, line) in [(&a, "top A\n"), (&b, "bottom B\n")] {
            match o.status.code() {
                Some(0) => assert!(now.contains(line), "round {round}: {line:?} lost"),
                Some(1) => {
                    assert_eq!(codes(o), ["file_changed"], "round {round}: {}", show(o));
                    refused += 1;
                }
                _ => panic!("round {round}: {}", show(o)),
            }
        }
        if now.contains("top A\n") && now.contains("bottom B\n") {
            both += 1;
        }
        assert_eq!(sb.listing("root"), ["f.txt"], "round {round}");
    }
    eprintln!("20 rounds of two concurrent applies: {both} with both edits, {refused} refused as file_changed, 0 lost");
}

/// A process appends 138 lines (open, write, close, a pause) while applies
/// rewrite the same file's first line, one after another: every appended
/// line is in the final file, once. An apply that raced with
/// a line is refused with `file_changed` (its edit redone by the next):
/// without the check, most appended lines would be lost.
#[test]
fn an_appender_during_applies_loses_no_line() {
    use std::io::Write;
    let sb = Sandbox::new("appender");
    let path = sb.write("root/f.txt", big("header 0", 20_000, "end"));
    let appender = std::thread::spawn(move || {
        for i in 0..138 {
            let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
            f.write_all(format!("appended {i}\n").as_bytes()).unwrap();
            drop(f);
            // Bursts with gaps, so that some applies fall between lines.
            let pause = if i % 6 == 5 { 120 } else { 4 };
            std::thread::sleep(std::time::Duration::from_millis(pause));
        }
    });
    let (mut applied, mut refused) = (0, 0);
    while !appender.is_finished() {
        let now = sb.read("root/f.txt");
        let first = now.lines().next().unwrap();
        let n: usize = first["header ".len()..].parse().unwrap();
        sb.write(
            "reply.txt",
            block(
                "f.txt",
                &format!("{first}\n"),
                &format!("header {}\n", n + 1),
            ),
        );
        let o = apply(&sb, "reply.txt", &[]);
        match o.status.code() {
            Some(0) => applied += 1,
            Some(1) if codes(&o) == ["file_changed"] => refused += 1,
            _ => panic!("{}", show(&o)),
        }
    }
    appender.join().unwrap();
    let now = sb.read("root/f.txt");
    let seen: Vec<usize> = now
        .lines()
        .filter_map(|l| l.strip_prefix("appended "))
        .map(|n| n.parse().unwrap())
        .collect();
    let missing: Vec<usize> = (0..138).filter(|i| !seen.contains(i)).collect();
    assert!(missing.is_empty(), "lost: {missing:?}");
    // A line appended at the very moment of a rollback is carried over a
    // moment later, so it may land a few lines late: order is not promised.
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        (0..138).collect::<Vec<_>>(),
        "every line once: {seen:?}"
    );
    assert!(now.starts_with(&format!("header {applied}\n")));
    assert_eq!(sb.listing("root"), ["f.txt"]);
    eprintln!(
        "138 appended lines during {applied} applies ({refused} refused as file_changed): 0 lost"
    );
}

/// The journal and patchbay's temporaries are not the model's to write,
/// named directly or through a symbolic link to them.
#[test]
fn patchbays_own_files_are_path_escape() {
    let sb = Sandbox::new("reserved");
    sb.write("root/a.txt", "a\n");
    // A backup some earlier run left, and a link to it.
    sb.write("root/.a.txt.patchbay-1-0.orig", "o\n");
    std::os::unix::fs::symlink(".a.txt.patchbay-1-0.orig", sb.path("root/o.txt")).unwrap();
    for (name, old) in [
        (".patchbay-journal", ""),
        ("sub/.a.txt.patchbay-1-0.tmp", ""),
        ("o.txt", "o\n"),
    ] {
        sb.write("reply.txt", block(name, old, "x\n"));
        let o = apply(&sb, "reply.txt", &[]);
        assert_eq!(o.status.code(), Some(1), "{}", show(&o));
        assert_eq!(codes(&o), ["path_escape"], "{name}");
    }
    assert_eq!(
        sb.listing("root"),
        [".a.txt.patchbay-1-0.orig", "a.txt", "o.txt"]
    );
    assert_eq!(sb.read("root/o.txt"), "o\n");
}

/// A `.git` folder is refused as a target (`path_escape`), named directly
/// or through a link into it, unless `--allow-git-dir`.
#[test]
fn git_folders_are_path_escape_unless_allowed() {
    let sb = Sandbox::new("gitdir");
    sb.write("root/a.txt", "a\n");
    sb.write("root/.git/HEAD", "ref: refs/heads/main\n");
    std::os::unix::fs::symlink(".git/hooks", sb.path("root/hooks")).unwrap();
    fs::create_dir(sb.path("root/.git/hooks")).unwrap();
    for name in [".git/hooks/post-commit", "hooks/pre-commit", ".GIT/config"] {
        sb.write("reply.txt", block(name, "", "#!/bin/sh\n"));
        let o = apply(&sb, "reply.txt", &[]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", show(&o));
        assert_eq!(codes(&o), ["path_escape"], "{name}");
        let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(rep.to_string().contains("--allow-git-dir"), "{rep}");
    }
    assert_eq!(sb.listing("root/.git"), ["HEAD", "hooks"]);
    assert!(!sb.path("root/.GIT").exists());
    for name in [".git/config", "hooks/pre-commit"] {
        sb.write("reply.txt", block(name, "", "#!/bin/sh\n"));
        let o = apply_root(&sb.dir, "reply.txt", &["--allow-git-dir"], &[]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", show(&o));
    }
    assert_eq!(
        sb.listing("root/.git"),
        ["HEAD", "config", "hooks", "hooks/pre-commit"]
    );
}

/// `splice` writes through the same commit: it recovers a killed commit in
/// its folder first, and refuses a file written during it (exit 1).
#[test]
fn splice_recovers_first_and_refuses_a_file_changed_meanwhile() {
    let sb = Sandbox::new("splice");
    let lib = "fn hello() {\n    1\n}\n";
    sb.write("root/lib.rs", lib);
    sb.write("root/b.rs", "b\n");
    sb.write("slice.txt", "fn hello() {\n    2\n}\n");
    // Two files, so that the commit has a journal to recover from.
    let reply = block("lib.rs", "    1\n", "    3\n") + &block("b.rs", "b\n", "c\n");
    sb.write("reply.txt", reply);
    let o = apply(&sb, "reply.txt", &[("PATCHBAY_TEST_CRASH", "rename:1")]);
    assert_eq!(o.status.code(), None, "{}", show(&o));
    assert_eq!(
        sb.read("root/lib.rs"),
        "fn hello() {\n    3\n}\n",
        "killed after its rename"
    );
    let splice = |env: &[(&str, &str)]| {
        patchbay_env(
            &sb.dir,
            &["splice", "root/lib.rs", "hello", "slice.txt"],
            env,
        )
    };
    let o = splice(&[("PATCHBAY_TEST_TOUCH", "lib.rs")]);
    let err = stderr(&o);
    assert!(err.contains("rolled back an interrupted commit"), "{err}");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert!(err.contains("file_changed"), "{err}");
    assert_eq!(
        sb.read("root/lib.rs"),
        format!("{lib}written by another process\n")
    );
    assert_eq!(sb.read("root/b.rs"), "b\n");
    assert_eq!(sb.listing("root"), ["b.rs", "lib.rs"]);
    let o = splice(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(sb
        .read("root/lib.rs")
        .starts_with("fn hello() {\n    2\n}\n"));
}

/// A temporary that a killed run left without a journal (as runs before the
/// journal did) is removed by the next commit in its folder; one of a live
/// process and a backup are not touched.
#[test]
fn stale_temporaries_without_a_journal_are_swept() {
    let sb = Sandbox::new("sweep");
    sb.write("root/a.txt", "a\n");
    let mut dead = Command::new("true").spawn().unwrap();
    let pid = dead.id();
    dead.wait().unwrap();
    let stale = format!(".a.txt.patchbay-{pid}-0.tmp");
    let live = format!(".a.txt.patchbay-{}-0.tmp", std::process::id());
    let orig = format!(".a.txt.patchbay-{pid}-1.orig");
    for n in [&stale, &live, &orig] {
        sb.write(&format!("root/{n}"), "left\n");
    }
    sb.write("reply.txt", block("a.txt", "a\n", "b\n"));
    let o = apply(&sb, "reply.txt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_stderr_has(&o, &stale);
    let mut want = vec![live, orig, "a.txt".to_string()];
    want.sort();
    assert_eq!(sb.listing("root"), want);
}

/// A commit killed in a folder whose name is not UTF-8, reached through a
/// symbolic link: the journal keeps the path's bytes, so the next run
/// rolls it back whole and leaves nothing beside the files (a journal
/// holding `\u{FFFD}` in place of the byte would leave the first file new,
/// the second old, and temporaries and backups beside them).
#[test]
fn a_commit_killed_in_a_folder_whose_name_is_not_utf8_is_rolled_back() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new("nonutf8");
    let dir = sb
        .path("root")
        .join(std::ffi::OsStr::from_bytes(b"d\xff\xfe%41"));
    fs::create_dir_all(&dir).unwrap();
    for n in ["a", "b"] {
        fs::write(dir.join(format!("{n}.txt")), format!("{n} old\n")).unwrap();
    }
    std::os::unix::fs::symlink(&dir, sb.path("root/link")).unwrap();
    sb.write(
        "reply.txt",
        block("link/a.txt", "a old\n", "a new\n") + &block("link/b.txt", "b old\n", "b new\n"),
    );
    for point in ["staged", "rename:1", "rename:2"] {
        let o = apply(&sb, "reply.txt", &[("PATCHBAY_TEST_CRASH", point)]);
        assert_eq!(o.status.code(), None, "{point}: it must die: {}", show(&o));
        sb.write("root/other.txt", "x\n");
        sb.write("other.txt", block("other.txt", "x\n", "y\n"));
        let o = apply(&sb, "other.txt", &[]);
        assert_eq!(o.status.code(), Some(0), "{point}: {}", show(&o));
        let err = stderr(&o);
        assert!(
            err.contains("rolled back an interrupted commit"),
            "{point}: {err}"
        );
        if point != "staged" {
            assert!(err.contains("restored"), "{point}: {err}");
        }
        fs::remove_file(sb.path("root/other.txt")).unwrap();
        for n in ["a", "b"] {
            let now = fs::read_to_string(dir.join(format!("{n}.txt"))).unwrap();
            assert_eq!(now, format!("{n} old\n"), "{point}");
        }
        let mut left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["a.txt", "b.txt"], "{point}");
        assert_eq!(
            sb.listing("root").len(),
            4,
            "{point}: {:?}",
            sb.listing("root")
        );
    }
    let o = apply(&sb, "reply.txt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert_eq!(fs::read_to_string(dir.join("b.txt")).unwrap(), "b new\n");
}

/// A target that another program turns into a folder between the last
/// check and its rename: the rename fails, the rollback restores what the
/// commit changed, leaves that folder alone, keeps the original's backup
/// and says how to put it back (exit 2); the journal is gone, so the next
/// run works (a rollback that renamed the backup over the folder would
/// fail, keep the journal, and make every later run exit 2).
#[test]
fn a_target_that_becomes_a_folder_before_its_rename_blocks_nothing() {
    let sb = Sandbox::new("swap");
    three_files(&sb);
    let o = apply(&sb, "reply.txt", &[("PATCHBAY_TEST_SWAP", "b.txt")]);
    assert_eq!(o.status.code(), Some(2), "{}", show(&o));
    let err = stderr(&o);
    assert!(
        err.contains("restored a.txt")
            && err.contains("b.txt became a folder")
            && err.contains("mv -- "),
        "{err}"
    );
    assert_eq!(sb.read("root/a.txt"), "a old\n");
    assert_eq!(sb.read("root/b.txt/inside.txt"), "x\n");
    assert!(!sb.path("root/.patchbay-journal").exists());
    let kept: Vec<String> = sb
        .listing("root")
        .into_iter()
        .filter(|n| n.starts_with(".b.txt.patchbay-") && n.ends_with(".orig"))
        .collect();
    assert_eq!(kept.len(), 1, "{:?}", sb.listing("root"));
    assert_eq!(sb.read(&format!("root/{}", kept[0])), "b old\n");
    // The root is not blocked: the next run recovers nothing and applies.
    sb.write("root/other.txt", "x\n");
    sb.write("other.txt", block("other.txt", "x\n", "y\n"));
    let o = apply(&sb, "other.txt", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", show(&o));
    assert!(o.stderr.is_empty(), "{}", show(&o));
    assert_eq!(sb.read("root/other.txt"), "y\n");
}

/// The counter on the line `{key} N` of `text`.
fn counter(text: &str, key: &str) -> usize {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key} ")))
        .unwrap();
    line.parse().unwrap()
}

/// One writer of the nested-roots test: `rounds` applies through `root`,
/// each raising the counter `key` by one in both files (one transaction).
/// Returns (applies that exited 0, refusals with `file_changed`).
fn raise_counters(
    dir: &Path,
    root: &str,
    prefix: &str,
    key: &str,
    rounds: usize,
) -> (usize, usize) {
    let (mut applied, mut refused) = (0, 0);
    let reply = dir.join(format!("reply-{key}.txt"));
    for _ in 0..rounds {
        let now = fs::read_to_string(dir.join("root/sub/f.txt")).unwrap();
        let n = counter(&now, key);
        let (old, new) = (format!("{key} {n}\n"), format!("{key} {}\n", n + 1));
        let edits = block(&format!("{prefix}f.txt"), &old, &new)
            + &block(&format!("{prefix}g.txt"), &old, &new);
        fs::write(&reply, edits).unwrap();
        let o = patchbay_env(
            dir,
            &[
                "apply",
                "--edits",
                reply.to_str().unwrap(),
                "--root",
                root,
                "--json",
            ],
            &[],
        );
        match o.status.code() {
            Some(0) => applied += 1,
            // Refused, nothing written (`file_changed`, or the counter
            // moved between this loop's read and the run's): the end state
            // shows whether anything was lost or half written.
            Some(1) => refused += 1,
            _ => panic!("{key}: {}", show(&o)),
        }
    }
    (applied, refused)
}

/// Two writers through two roots that share files (`root/sub` and
/// `root/sub/..`), each raising its own counter in two files per apply:
/// every apply that exits 0 is in both files at the end, and the two
/// files agree (no half of a transaction). Per-root locks alone would let
/// both commit at once and lose edits that exited 0.
#[test]
fn two_writers_through_nested_roots_lose_no_edit() {
    let sb = Sandbox::new("nested");
    for f in ["f", "g"] {
        sb.write(&format!("root/sub/{f}.txt"), big("a 0", 2_000, "b 0"));
    }
    let rounds = 40;
    let dir = sb.dir.clone();
    let d2 = dir.clone();
    let a = std::thread::spawn(move || raise_counters(&d2, "root/sub", "", "a", rounds));
    let b = raise_counters(&dir, "root/sub/..", "sub/", "b", rounds);
    let a = a.join().unwrap();
    let (f, g) = (sb.read("root/sub/f.txt"), sb.read("root/sub/g.txt"));
    let (fa, fb) = (counter(&f, "a"), counter(&f, "b"));
    let lost = (a.0 - fa.min(a.0)) + (b.0 - fb.min(b.0));
    eprintln!(
        "nested roots, {rounds} applies each: a {} exited 0 ({} refused), b {} exited 0 ({} refused); final a {fa}, b {fb}; {lost} edits lost",
        a.0, a.1, b.0, b.1
    );
    assert_eq!(
        (counter(&g, "a"), counter(&g, "b")),
        (fa, fb),
        "the two files agree"
    );
    assert_eq!((fa, fb), (a.0, b.0), "{lost} edits that exited 0 were lost");
    assert_eq!(sb.listing("root"), ["sub", "sub/f.txt", "sub/g.txt"]);
}

/// Two runs through nested roots create the same new file at once, 30
/// rounds: at most one exits 0 and the file holds its text; the other is
/// refused (`file_changed` or `file_exists`) and wrote nothing.
#[test]
fn two_creators_of_one_new_file_through_nested_roots_never_both_win() {
    let sb = Sandbox::new("nestednew");
    sb.write("root/sub/keep.txt", "k\n");
    // Two files each, so that each commit has a journal (a longer window).
    sb.write(
        "one.txt",
        "*** Begin Patch\n*** Add File: n.txt\n+one\n*** Add File: one-only.txt\n+1\n*** End Patch\n",
    );
    sb.write(
        "two.txt",
        "*** Begin Patch\n*** Add File: sub/n.txt\n+two\n*** Add File: sub/two-only.txt\n+2\n*** End Patch\n",
    );
    let mut both = 0;
    for round in 0..30 {
        for f in ["n.txt", "one-only.txt", "two-only.txt"] {
            let _ = fs::remove_file(sb.path(&format!("root/sub/{f}")));
        }
        let spawn = |reply: &str, root: &str| {
            Command::new(env!("CARGO_BIN_EXE_patchbay"))
                .args(["apply", "--edits", reply, "--root", root, "--json"])
                .current_dir(&sb.dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (
            spawn("one.txt", "root/sub"),
            spawn("two.txt", "root/sub/.."),
        );
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let won: Vec<&str> = [(&a, "one\n"), (&b, "two\n")]
            .iter()
            .filter(|(o, _)| o.status.code() == Some(0))
            .map(|(_, t)| *t)
            .collect();
        for o in [&a, &b] {
            if o.status.code() != Some(0) {
                assert_eq!(o.status.code(), Some(1), "round {round}: {}", show(o));
                let c = codes(o);
                assert!(
                    c.contains(&"file_changed".into()) || c.contains(&"file_exists".into()),
                    "round {round}: {c:?}"
                );
            }
        }
        if won.len() == 2 {
            both += 1;
            continue;
        }
        assert_eq!(won.len(), 1, "round {round}: {} / {}", show(&a), show(&b));
        assert_eq!(sb.read("root/sub/n.txt"), won[0], "round {round}");
    }
    eprintln!("30 rounds of two creators of one new file through nested roots: {both} with both exiting 0");
    assert_eq!(
        both, 0,
        "{both} rounds lost one creator's file although both exited 0"
    );
}

/// Runs `patchbay apply` on `reply` with at most 1 GiB of address space
/// and 20 s: a run that hangs or reads without end fails the test instead
/// of the machine. Returns the output and the seconds it took.
fn bounded_apply(sb: &Sandbox, reply: &str) -> (Output, f64) {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(env!("CARGO_BIN_EXE_patchbay"));
    c.args(["apply", "--edits", reply, "--root", "root", "--json"])
        .current_dir(&sb.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs in the child.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    let started = std::time::Instant::now();
    let mut child = c.spawn().unwrap();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{reply}: still running after 20 s (blocked or reading without end)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    (o, started.elapsed().as_secs_f64())
}

fn mkfifo(p: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = cstr(p.as_os_str().as_bytes());
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {p:?}"
    );
}

/// Whether a character device node like /dev/zero (1, 5) can be made here
/// (a container without CAP_MKNOD cannot); makes it at `p` if so.
fn mknod_zero(p: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let c = cstr(p.as_os_str().as_bytes());
    unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 5)) == 0 }
}

/// A FIFO or a character device as a target, named directly or through a
/// link inside the root: refused at once (exit 2, the message says what it
/// is), nothing written, and the root's lock is free for the next run.
/// Opened like a file, the FIFO would block `apply` in open() forever
/// holding the root's lock, and a /dev/zero-like node would be read until
/// memory ran out.
#[test]
fn fifos_and_devices_are_refused_without_blocking_or_reading() {
    let sb = Sandbox::new("fifo");
    sb.write("root/a.txt", "a\n");
    mkfifo(&sb.path("root/pipe.txt"));
    std::os::unix::fs::symlink("pipe.txt", sb.path("root/to-pipe.txt")).unwrap();
    let mut targets = vec![("pipe.txt", "FIFO"), ("to-pipe.txt", "FIFO")];
    if mknod_zero(&sb.path("root/zero.txt")) {
        targets.push(("zero.txt", "character device"));
    } else {
        eprintln!("skipped the device node: mknod is not allowed here (no CAP_MKNOD)");
    }
    for (name, what) in targets {
        sb.write(
            "reply.txt",
            block("a.txt", "a\n", "b\n") + &block(name, "x\n", "y\n"),
        );
        let (o, secs) = bounded_apply(&sb, "reply.txt");
        assert_eq!(o.status.code(), Some(2), "{name}: {}", show(&o));
        let err = stderr(&o);
        assert!(
            err.contains(what) && err.contains("only regular files"),
            "{name}: {err}"
        );
        assert!(secs < 10.0, "{name}: {secs:.1} s");
        eprintln!("{name} ({what}): refused in {secs:.3} s");
        assert_eq!(sb.read("root/a.txt"), "a\n", "{name}: nothing written");
        // The lock is free: an ordinary apply in the root goes through.
        sb.write("ok.txt", block("a.txt", "a\n", "a\n"));
        let (o, _) = bounded_apply(&sb, "ok.txt");
        assert!(o.status.code().is_some(), "{name}: {}", show(&o));
    }
    // /dev/zero itself, through a link in the root: it leaves the root.
    std::os::unix::fs::symlink("/dev/zero", sb.path("root/devzero.txt")).unwrap();
    sb.write("reply.txt", block("devzero.txt", "x\n", "y\n"));
    let (o, _) = bounded_apply(&sb, "reply.txt");
    assert_eq!(o.status.code(), Some(1), "{}", show(&o));
    assert_eq!(codes(&o), ["path_escape"]);
}
