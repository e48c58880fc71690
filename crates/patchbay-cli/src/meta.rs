//! What a rewrite must carry over from the file it replaces, and what can
//! be checked before the first rename: owner and group, mode, extended
//! attributes (`user.*`, ACLs), the immutable and append-only flags, and
//! write access to a folder. Each is best effort where the platform lacks
//! it; a failed check here only means the rename would fail later (and
//! the commit roll back).

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// Gives `tmp` the owner, group, mode and extended attributes of `orig`,
/// as GNU patch and rsync do. Ownership is kept where the user may set it
/// (root: always; others: a group they belong to); the mode always.
pub fn carry_over(orig: &fs::Metadata, orig_path: &Path, tmp: &File) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{fchown, MetadataExt};
        // Not being allowed to give a file away is normal for non-root;
        // keep at least the group then. Never an error (GNU patch's rule).
        if fchown(tmp, Some(orig.uid()), Some(orig.gid())).is_err() {
            let _ = fchown(tmp, None, Some(orig.gid()));
        }
    }
    // After the chown, which clears set-user-ID bits.
    tmp.set_permissions(orig.permissions())?;
    copy_xattrs(orig_path, tmp);
    Ok(())
}

/// Copies every extended attribute that can be read and set; one that the
/// user may not set (`trusted.*`, `security.*` without privilege) is skipped.
#[cfg(target_os = "linux")]
fn copy_xattrs(from: &Path, to: &File) {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
    let Ok(c) = std::ffi::CString::new(from.as_os_str().as_bytes()) else {
        return;
    };
    let names = fetch(|buf, len| unsafe { libc::listxattr(c.as_ptr(), buf, len) });
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let Ok(n) = std::ffi::CString::new(name) else {
            continue;
        };
        let value = fetch(|buf, len| unsafe {
            libc::getxattr(c.as_ptr(), n.as_ptr(), buf as *mut libc::c_void, len)
        });
        unsafe {
            libc::fsetxattr(
                to.as_raw_fd(),
                n.as_ptr(),
                value.as_ptr() as *const libc::c_void,
                value.len(),
                0,
            );
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn copy_xattrs(_from: &Path, _to: &File) {}

/// Calls a `listxattr`-style function twice: once for the size, once for
/// the bytes (retrying if it grew in between). Empty on any error.
#[cfg(target_os = "linux")]
fn fetch(call: impl Fn(*mut libc::c_char, usize) -> isize) -> Vec<u8> {
    for _ in 0..3 {
        let n = call(std::ptr::null_mut(), 0);
        if n <= 0 {
            return vec![];
        }
        let mut buf = vec![0u8; n as usize];
        let got = call(buf.as_mut_ptr() as *mut libc::c_char, buf.len());
        if got >= 0 {
            buf.truncate(got as usize);
            return buf;
        }
    }
    vec![]
}

/// Why `path` (a file or folder) cannot be replaced or removed, from its
/// flags: `chattr +i` or `+a`. `None` when the flags allow it or cannot be read.
pub fn locked_flag(path: &Path) -> Option<&'static str> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        const IMMUTABLE: libc::c_int = 0x10;
        const APPEND: libc::c_int = 0x20;
        // _IOR('f', 1, long): the generic ioctl encoding (x86, arm, riscv).
        const GETFLAGS: u64 =
            (2 << 30) | ((std::mem::size_of::<libc::c_long>() as u64) << 16) | (0x66 << 8) | 1;
        let f = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(path)
            .ok()?;
        let mut flags: libc::c_int = 0;
        let rc = unsafe { libc::ioctl(f.as_raw_fd(), GETFLAGS as _, &mut flags) };
        if rc != 0 {
            return None;
        }
        if flags & IMMUTABLE != 0 {
            return Some("it is immutable (chattr +i)");
        }
        if flags & APPEND != 0 {
            return Some("it is append-only (chattr +a)");
        }
    }
    let _ = path;
    None
}

/// Whether the effective user may create and remove entries in `dir`
/// (a read-only mount, a folder without write permission).
pub fn dir_writable(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        // Linux's value; the constant is missing from libc for Linux.
        #[cfg(target_os = "linux")]
        const AT_EACCESS: libc::c_int = 0x200;
        #[cfg(not(target_os = "linux"))]
        const AT_EACCESS: libc::c_int = libc::AT_EACCESS;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("NUL in a path"))?;
        let rc = unsafe {
            libc::faccessat(
                libc::AT_FDCWD,
                c.as_ptr(),
                libc::W_OK | libc::X_OK,
                AT_EACCESS,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let _ = dir;
    Ok(())
}

/// Why the sticky bit of `dir` keeps the effective user from replacing
/// `file` (owned by someone else, in a folder owned by someone else).
pub fn sticky_refuses(dir: &fs::Metadata, file: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let euid = unsafe { libc::geteuid() };
        return dir.mode() & 0o1000 != 0 && euid != 0 && euid != file.uid() && euid != dir.uid();
    }
    #[allow(unreachable_code)]
    {
        let _ = (dir, file);
        false
    }
}
