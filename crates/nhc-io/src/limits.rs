//! Bounds on every size a user can give, and the memory a run may take: checked before any
//! work, so big inputs get a clear error instead of an abort.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// Highest level any command accepts (a task may accept fewer: its `max_level`).
pub const MAX_LEVEL: usize = 1_000_000;
/// Most samples of one evaluation.
pub const MAX_SAMPLES: usize = 1_000_000;
/// Largest input file (`--input @FILE`, map files) and input text.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;
/// Largest model file (θ of a few hundred numbers is a few kilobytes).
pub const MAX_MODEL_BYTES: u64 = 16 << 20;
/// Largest config file, checkpoint or summary.
pub const MAX_STATE_BYTES: u64 = 256 << 20;
/// Share of the machine's memory a run may take unless told otherwise.
pub const DEFAULT_MEMORY_SHARE: f64 = 0.5;

/// A size beyond its bound, or a run that would need more memory than allowed.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum LimitError {
    #[error("{what} is {got}; at most {max} is supported")]
    TooLarge { what: &'static str, got: u64, max: u64 },
    #[error(
        "{what} would need about {} ({steps} steps of about {bytes_per_step} bytes{}), more than the memory limit of {} (set it with {})",
        show_bytes(*needed), if *in_flight > 1 { format!(", {in_flight} samples at a time") } else { String::new() }, show_bytes(*limit), limit_setter()
    )]
    Memory { what: String, steps: u64, bytes_per_step: u64, in_flight: u64, needed: u64, limit: u64 },
    #[error(
        "reading {what} {path} ({}) would take up to {} (its text and the parsed JSON), more than the memory limit of {} (set it with {})",
        show_bytes(*bytes), show_bytes(*needed), show_bytes(*limit), limit_setter()
    )]
    JsonFile { path: String, what: &'static str, bytes: u64, needed: u64, limit: u64 },
    #[error(
        "{what} would run about {:.1e} model steps, about {} at the {:.1e} steps a second measured here: more than {}; {} to start it anyway, or ask for less",
        *steps as f64, show_seconds(*steps as f64 / *speed as f64), *speed as f64, show_seconds(*allowed as f64), work_confirmer()
    )]
    LongWork { what: String, steps: u64, speed: u64, allowed: u64 },
    #[error("{path} is larger than {max} bytes; it cannot be {what}")]
    FileTooLarge { path: String, what: &'static str, max: u64 },
    #[error("cannot read {what} {path}: it is {kind}; give a regular file")]
    NotAFile { path: String, what: &'static str, kind: &'static str },
    #[error("cannot read {what} {path}: {reason}")]
    Read { path: String, what: &'static str, reason: String },
    #[error("`{0}` is beyond the largest memory size, 18446744073709551615 bytes (16777216T)")]
    MemoryTooLarge(String),
    #[error("`{0}` is not a memory size (e.g. 8G, 512M, 1000000)")]
    MemorySize(String),
}

/// `value ≤ max`, or a [`LimitError::TooLarge`] naming `what`.
pub fn at_most(what: &'static str, value: u64, max: u64) -> Result<(), LimitError> {
    if value > max { Err(LimitError::TooLarge { what, got: value, max }) } else { Ok(()) }
}

/// Bytes as text: `7.2 GB`, `512.0 MB`, `900 bytes`.
pub fn show_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / (1u64 << 20) as f64),
        b => format!("{b} bytes"),
    }
}

/// The memory limit set for this process; 0 = not set ([`memory_limit`] then uses a share of
/// the machine's memory).
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Sets the memory a run may take, in bytes (`--max-memory`).
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes, Ordering::Relaxed);
}

static LIMIT_SETTER: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// How the user of this process sets the memory limit, as a memory refusal names it: `--max-memory`
/// unless an embedding (Python's `nhc.set_max_memory`) says otherwise, once.
pub fn set_limit_setter(how: &'static str) {
    let _ = LIMIT_SETTER.set(how);
}

static WORK_CONFIRMER: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// How the user of this process starts long work anyway, as a refusal names it: `add --yes`
/// unless an embedding (Python: `pass confirm=True`) says otherwise, once.
pub fn set_work_confirmer(how: &'static str) {
    let _ = WORK_CONFIRMER.set(how);
}

fn work_confirmer() -> &'static str {
    WORK_CONFIRMER.get().copied().unwrap_or("add --yes")
}

fn limit_setter() -> &'static str {
    LIMIT_SETTER.get().copied().unwrap_or("--max-memory")
}

/// The memory a run may take: the limit set, or [`DEFAULT_MEMORY_SHARE`] of the machine's
/// memory (`MemTotal` of /proc/meminfo; 4 GB where that cannot be read).
pub fn memory_limit() -> u64 {
    match MEMORY_LIMIT.load(Ordering::Relaxed) {
        0 => (machine_memory().unwrap_or(8 << 30) as f64 * DEFAULT_MEMORY_SHARE) as u64,
        set => set,
    }
}

fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Parses a memory size: a number of bytes, or with a suffix K, M, G, T (powers of 1024).
pub fn parse_memory(text: &str) -> Result<u64, LimitError> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit() && *c != '.') {
        Some((i, _)) => (&t[..i], t[i..].trim().trim_end_matches(['B', 'b'])),
        None => (t, ""),
    };
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" => 1,
        "K" | "KI" => 1 << 10,
        "M" | "MI" => 1 << 20,
        "G" | "GI" => 1 << 30,
        "T" | "TI" => 1 << 40,
        _ => return Err(LimitError::MemorySize(text.to_string())),
    };
    let x: f64 = digits.parse().map_err(|_| LimitError::MemorySize(text.to_string()))?;
    let bytes = x * scale as f64;
    if bytes.is_finite() && bytes > u64::MAX as f64 {
        return Err(LimitError::MemoryTooLarge(text.to_string()));
    }
    if !(bytes.is_finite() && bytes >= 1.0) {
        return Err(LimitError::MemorySize(text.to_string()));
    }
    Ok(bytes as u64)
}

/// What one sample of a run needs: model steps and bytes per step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    pub steps: u64,
    pub bytes_per_step: u64,
}

impl Estimate {
    /// Bytes of one sample.
    pub fn bytes(&self) -> u64 {
        self.steps.saturating_mul(self.bytes_per_step)
    }

    /// How many samples of this size may run at once within the limit (at most `wanted`), or an
    /// error when not even one fits.
    pub fn in_flight(&self, what: impl Into<String>, wanted: u64) -> Result<u64, LimitError> {
        let limit = memory_limit();
        let one = self.bytes().max(1);
        if one > limit {
            return Err(LimitError::Memory {
                what: what.into(),
                steps: self.steps,
                bytes_per_step: self.bytes_per_step,
                in_flight: 1,
                needed: one,
                limit,
            });
        }
        Ok((limit / one).clamp(1, wanted.max(1)))
    }
}

/// What a file that is not a regular one is, in words.
fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() { "a directory" } else { "not a regular file" }
}

/// Reads a regular file of at most `max` bytes; `what` names it in errors ("model file", …).
pub fn read_bytes(path: &Path, what: &'static str, max: u64) -> Result<Vec<u8>, LimitError> {
    let shown = || path.display().to_string();
    let err = |e: std::io::Error| LimitError::Read { path: shown(), what, reason: e.to_string() };
    // A named pipe without a writer would block in open(), a device may never end: only regular
    // files are read. The size is known before reading.
    let meta = std::fs::metadata(path).map_err(err)?;
    if !meta.is_file() {
        let kind = file_kind(&meta.file_type());
        return Err(LimitError::NotAFile { path: shown(), what, kind });
    }
    if meta.len() > max {
        return Err(LimitError::FileTooLarge { path: shown(), what, max });
    }
    let file = std::fs::File::open(path).map_err(err)?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(err)?;
    if bytes.len() as u64 > max {
        return Err(LimitError::FileTooLarge { path: shown(), what, max });
    }
    Ok(bytes)
}

/// How the speed of the work at hand is measured (model steps a second, all threads; called once,
/// when work of [`TIMED_STEPS`] or more is checked), and the longest work a command starts
/// without `--yes`, in seconds. No measure, or 0 seconds, = no such check (the library's default,
/// and the command line's with `--yes`, which still announces long work).
struct Work {
    measure: Option<Box<dyn Fn() -> f64 + Send>>,
    speed: Option<f64>,
    seconds: f64,
}

static WORK: std::sync::Mutex<Work> =
    std::sync::Mutex::new(Work { measure: None, speed: None, seconds: 0.0 });

/// The longest work a command starts unasked: an hour.
pub const LONG_WORK_SECONDS: f64 = 3600.0;

/// Work estimated to take this long or more is announced ([`set_work_notice`]) before it starts.
pub const NOTICE_SECONDS: f64 = 5.0;

/// Work of fewer model steps is neither timed nor announced: under a second at the NHC's speed
/// (a step is a few hundred multiply-adds).
pub const TIMED_STEPS: u64 = 1_000_000;

static WORK_NOTICE: std::sync::OnceLock<fn(&str, u64)> = std::sync::OnceLock::new();

/// Where [`check_work`] announces work of [`NOTICE_SECONDS`] or more, with its model steps (the
/// command line: a line on stderr, and a progress bar on a terminal).
pub fn set_work_notice(notice: fn(&str, u64)) {
    let _ = WORK_NOTICE.set(notice);
}

/// Sets how the speed is measured (model steps a second; measured once, when first needed) and
/// the longest work started unasked (seconds; 0: any, still announced).
pub fn set_work_limit(measure: impl Fn() -> f64 + Send + 'static, seconds: f64) {
    let mut w = WORK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    *w = Work { measure: Some(Box::new(measure)), speed: None, seconds };
}

/// The speed of the work at hand, measured on first use; `None` when no measure is set.
fn work_speed() -> Option<(f64, f64)> {
    let mut w = WORK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let measure = w.measure.as_ref()?;
    let speed = match w.speed {
        Some(s) => s,
        None => {
            let s = measure();
            w.speed = Some(s);
            s
        }
    };
    Some((speed, w.seconds))
}

/// Refuses work of `steps` model steps that would take longer than the limit set
/// ([`set_work_limit`]) at the speed measured, and announces work of [`NOTICE_SECONDS`] or more;
/// `what` names it ("verifying every list of …").
pub fn check_work(what: &str, steps: u64) -> Result<(), LimitError> {
    if steps < TIMED_STEPS {
        return Ok(());
    }
    let Some((speed, allowed)) = work_speed() else { return Ok(()) };
    let seconds = steps as f64 / speed;
    let refused = speed > 0.0 && allowed > 0.0 && seconds > allowed;
    if speed > 0.0
        && !refused
        && seconds >= NOTICE_SECONDS
        && let Some(notice) = WORK_NOTICE.get()
    {
        let line = format!(
            "{what}: about {:.1e} model steps, about {} at the {speed:.1e} steps a second measured here",
            steps as f64,
            show_seconds(seconds)
        );
        notice(&line, steps);
    }
    if refused {
        let (speed, allowed) = (speed as u64, allowed as u64);
        return Err(LimitError::LongWork { what: what.to_string(), steps, speed, allowed });
    }
    Ok(())
}

/// A duration in words: seconds, minutes, hours or days.
pub fn show_seconds(s: f64) -> String {
    match s {
        s if s >= 2.0 * 86400.0 => format!("{:.0} days", s / 86400.0),
        s if s >= 2.0 * 3600.0 => format!("{:.0} hours", s / 3600.0),
        s if s >= 3600.0 => "an hour".to_string(),
        s if s >= 120.0 => format!("{:.0} minutes", s / 60.0),
        s => format!("{s:.0} s"),
    }
}

/// The most memory parsing JSON takes per byte of its text, text included: a value of the tree
/// is 32 bytes, a number can be 2 bytes of text (`0,`), and an array's capacity may be twice its
/// length; so 32 for the tree and 1 for the text, and 1 to spare.
pub const JSON_BYTES_PER_BYTE: u64 = 34;

/// Reads a JSON text file ([`read_text`]) after checking from its size alone that its text and
/// parsed tree fit the memory limit ([`JSON_BYTES_PER_BYTE`]).
pub fn read_json_text(path: &Path, what: &'static str, max: u64) -> Result<String, LimitError> {
    if let Ok(meta) = std::fs::metadata(path)
        && meta.is_file()
    {
        let bytes = meta.len();
        let needed = bytes.saturating_mul(JSON_BYTES_PER_BYTE);
        let limit = memory_limit();
        if needed > limit && bytes <= max {
            return Err(LimitError::JsonFile {
                path: path.display().to_string(),
                what,
                bytes,
                needed,
                limit,
            });
        }
    }
    read_text(path, what, max)
}

/// Reads a text file of at most `max` bytes ([`read_bytes`]), UTF-8.
pub fn read_text(path: &Path, what: &'static str, max: u64) -> Result<String, LimitError> {
    let mut bytes = read_bytes(path, what, max)?;
    // A UTF-8 byte-order mark (as some Windows editors save) is no part of the text.
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| LimitError::Read {
        path: path.display().to_string(),
        what,
        reason: std::io::Error::new(std::io::ErrorKind::InvalidData, e).to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_parse() {
        assert_eq!(parse_memory("8G"), Ok(8 << 30));
        assert_eq!(parse_memory("512M"), Ok(512 << 20));
        assert_eq!(parse_memory("1.5GB"), Ok(3 << 29));
        assert_eq!(parse_memory("1000"), Ok(1000));
        for bad in ["", "G", "-1G", "8X", "0", "1e400"] {
            assert!(parse_memory(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_memory("18446744073709551615"), Ok(u64::MAX));
        for beyond in ["18446744073709551617000", "99999999999G"] {
            assert_eq!(parse_memory(beyond), Err(LimitError::MemoryTooLarge(beyond.into())));
        }
    }

    #[test]
    fn samples_in_flight_fit_the_limit() {
        set_memory_limit(1000);
        let e = Estimate { steps: 10, bytes_per_step: 30 };
        assert_eq!(e.in_flight("x", 50), Ok(3));
        assert_eq!(e.in_flight("x", 2), Ok(2));
        let big = Estimate { steps: 100, bytes_per_step: 30 };
        let err = big.in_flight("level 5", 1).unwrap_err().to_string();
        assert!(err.contains("level 5 would need about 3000 bytes") && err.contains("--max-memory"), "{err}");
        set_memory_limit(0);
    }

    /// Work past the limit is refused at the speed set, and nothing is refused when no limit is
    /// set; the message names the time in words.
    #[test]
    fn long_work_is_refused_past_the_limit() {
        assert_eq!(check_work("x", u64::MAX), Ok(()));
        set_work_limit(|| 1e6, LONG_WORK_SECONDS);
        assert_eq!(check_work("x", 3_600_000_000), Ok(()));
        let err = check_work("verifying every list", 9_000_000_000).unwrap_err().to_string();
        assert!(
            err.contains("about 9.0e9 model steps, about 2 hours at the 1.0e6 steps a second")
                && err.contains("--yes"),
            "{err}"
        );
        set_work_limit(|| 0.0, 0.0);
        assert_eq!(check_work("x", u64::MAX), Ok(()));
        // The speed is measured once, and only for work of a million steps or more.
        static CALLS: AtomicU64 = AtomicU64::new(0);
        set_work_limit(
            || {
                CALLS.fetch_add(1, Ordering::Relaxed);
                1e6
            },
            LONG_WORK_SECONDS,
        );
        assert_eq!(check_work("x", TIMED_STEPS - 1), Ok(()));
        assert_eq!(CALLS.load(Ordering::Relaxed), 0);
        assert!(check_work("x", 9_000_000_000).is_err() && check_work("x", 9_000_000_000).is_err());
        assert_eq!(CALLS.load(Ordering::Relaxed), 1);
        set_work_limit(|| 0.0, 0.0);
        assert_eq!(show_seconds(90.0), "90 s");
        assert_eq!(show_seconds(3.0 * 86400.0), "3 days");
    }

    /// Only regular files are read: a named pipe without a writer, a directory, a device or a
    /// socket is refused before open() in one line naming what it is; a symlink to a regular
    /// file is read, and a file larger than the bound is refused from its size.
    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.json");
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(read_text(&file, "model file", 10).unwrap(), "{}");
        let bom = dir.path().join("bom.json");
        std::fs::write(&bom, b"\xEF\xBB\xBF{}").unwrap();
        assert_eq!(read_text(&bom, "model file", 10).unwrap(), "{}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_text(&link, "model file", 10).unwrap(), "{}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let cases = [
            (fifo.as_path(), "a named pipe"),
            (socket.as_path(), "a socket"),
            (dir.path(), "a directory"),
            (Path::new("/dev/null"), "a device"),
            (Path::new("/dev/zero"), "a device"),
        ];
        for (path, kind) in cases {
            let err = read_text(path, "input file", 1 << 20).unwrap_err().to_string();
            assert!(
                err.contains(kind) && err.contains("give a regular file") && !err.contains('\n'),
                "{err}"
            );
        }
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b' '; 11]).unwrap();
        let err = read_bytes(&big, "model file", 10).unwrap_err();
        assert!(matches!(err, LimitError::FileTooLarge { max: 10, .. }), "{err}");
    }
}
