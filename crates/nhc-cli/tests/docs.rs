//! What the documentation promises: every relative Markdown link of README.md and docs/**/*.md
//! lands on a file that exists (and on a heading of it, where the link names one), and every
//! fenced block marked `<!-- runnable -->` prints what the page shows.
//!
//! A runnable block: the line `<!-- runnable -->`, then a fenced block in which each line that
//! starts with `$ ` is a command (a line ending in `\` continues on the next) and the lines after
//! it, up to the next command, are what it prints on stdout; a line `...` stands for any number of
//! lines. The commands of one block run in turn with `sh` in one scratch directory that holds
//! `models/` and `results/` of the repository, with this build's `nhc` first on PATH. Mark only
//! blocks that take seconds and print the same every time.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

/// README.md and every Markdown file under docs/.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> =
            std::fs::read_dir(dir).expect("docs/ is readable").map(|e| e.expect("an entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out
}

/// The lines outside fenced code blocks, numbered from 1, with inline code spans removed.
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            let mut kept = String::new();
            for (k, part) in line.split('`').enumerate() {
                if k % 2 == 0 {
                    kept.push_str(part);
                }
            }
            out.push((i + 1, kept));
        }
    }
    out
}

/// The anchor a heading gets: lower case, letters, digits, `-` and `_` kept, spaces turned into
/// `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The heading anchors of a page; a repeated heading gets `-1`, `-2`, … as on GitHub.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for (_, line) in prose(&text.replace('`', "")) {
        let Some(heading) = line.strip_prefix('#') else { continue };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of the Markdown links (and images) on a line of prose.
fn targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find([')', ' ']).unwrap_or(after.len());
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

#[test]
fn relative_links_land_on_files_and_headings() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown = page.strip_prefix(root()).unwrap().display().to_string();
        for (n, line) in prose(&text) {
            for target in targets(&line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
                let file = if path.is_empty() { page.clone() } else { page.parent().unwrap().join(path) };
                if !file.exists() {
                    broken.push(format!("{shown}:{n}: {target} (no such file)"));
                } else if !anchor.is_empty() && file.extension().is_some_and(|e| e == "md") {
                    let there = std::fs::read_to_string(&file).unwrap();
                    if !anchors(&there).contains(anchor) {
                        broken.push(format!("{shown}:{n}: {target} (no such heading)"));
                    }
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every path of the repository a page cites as text, in prose or in code (`results/…`,
/// `scripts/…`, `configs/…`, `models/…`, from the root or from the page), names a file or
/// directory that exists: a number the docs quote keeps the file it was read from, wherever files
/// move. Paths with a wildcard or a placeholder (`*`, `<P>`, `{a,b}`, a capital standing alone as
/// in `free_R_screen` or `models/T.json`, `NAME`, `WORLD`) are patterns, not files.
#[test]
fn cited_repository_files_exist() {
    let mut pages = pages();
    for dir in ["results", "scripts", "configs"] {
        let mut more: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .expect("a top folder")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        more.sort();
        pages.extend(more);
    }
    let in_path = |c: char| c.is_alphanumeric() || "_./+-*<>{},".contains(c);
    let pattern = |path: &str| {
        let chars: Vec<char> = path.chars().collect();
        let lone_capital = (0..chars.len()).any(|i| {
            let letter = |k: Option<&char>| k.is_some_and(|c| c.is_alphabetic());
            chars[i].is_ascii_uppercase()
                && !letter(i.checked_sub(1).and_then(|k| chars.get(k)))
                && !letter(chars.get(i + 1))
        });
        lone_capital || path.contains(['*', '<', '>', '{']) || path.contains("NAME") || path.contains("WORLD")
    };
    let (mut missing, mut checked) = (Vec::new(), 0);
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown = page.strip_prefix(root()).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            // Whole path-like tokens, so that `docs/results/x.md` and `../../results/x` are one.
            for token in line.split(|c: char| !in_path(c)) {
                let token = token.trim_end_matches(['.', ',']).trim_start_matches(',');
                let cites = ["results/", "scripts/", "configs/", "models/"]
                    .iter()
                    .any(|top| token.starts_with(top) || token.contains(&format!("/{top}")));
                if !cites || token.starts_with("runs/") || token.starts_with('/') || pattern(token) {
                    continue;
                }
                checked += 1;
                let from_page = page.parent().unwrap().join(token);
                if !root().join(token).exists() && !from_page.exists() {
                    missing.push(format!("{shown}:{}: {token}", n + 1));
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} paths found");
    assert!(missing.is_empty(), "cited files that do not exist:\n{}", missing.join("\n"));
}

/// scripts/README.md has a line for every script in scripts/, and results/screens/README.md (drawn
/// by results/screens/index.py) a row for every file under results/screens/.
#[test]
fn every_script_and_screen_is_listed() {
    let readme = std::fs::read_to_string(root().join("scripts/README.md")).unwrap();
    for entry in std::fs::read_dir(root().join("scripts")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name != "README.md" && !name.starts_with('.') && !name.starts_with("__") {
            assert!(readme.contains(&format!("`{name}`")), "scripts/README.md has no line for {name}");
        }
    }
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let screens = root().join("results/screens");
    let index = std::fs::read_to_string(screens.join("README.md")).unwrap();
    let mut files = Vec::new();
    walk(&screens, &mut files);
    for path in files {
        let rel = path.strip_prefix(&screens).unwrap().display().to_string();
        let name = path.file_name().unwrap().to_string_lossy();
        if name == "README.md" || name == "index.py" || name.starts_with('.') || rel.contains("__pycache__") {
            continue;
        }
        assert!(
            index.contains(&format!("]({rel})")),
            "results/screens/README.md has no row for {rel}: run results/screens/index.py"
        );
    }
}

/// One command of a runnable block and what the page shows it printing.
struct Step {
    command: String,
    shown: Vec<String>,
}

/// The runnable blocks of a page: (line of the marker, its commands).
fn runnable_blocks(text: &str) -> Vec<(usize, Vec<Step>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "<!-- runnable -->" {
            i += 1;
            continue;
        }
        let marker = i + 1;
        i += 1;
        while i < lines.len() && lines[i].trim().is_empty() {
            i += 1;
        }
        assert!(
            i < lines.len() && lines[i].starts_with("```"),
            "line {marker}: `<!-- runnable -->` is not followed by a fenced block"
        );
        i += 1;
        let mut steps: Vec<Step> = Vec::new();
        while i < lines.len() && !lines[i].starts_with("```") {
            if let Some(command) = lines[i].strip_prefix("$ ") {
                let mut command = command.to_string();
                while command.ends_with('\\') && i + 1 < lines.len() {
                    command.pop();
                    i += 1;
                    command.push('\n');
                    command.push_str(lines[i]);
                }
                steps.push(Step { command, shown: Vec::new() });
            } else {
                let step =
                    steps.last_mut().unwrap_or_else(|| panic!("line {}: output before a command", i + 1));
                step.shown.push(lines[i].to_string());
            }
            i += 1;
        }
        assert!(!steps.is_empty(), "line {marker}: a runnable block without a `$ ` command");
        blocks.push((marker, steps));
        i += 1;
    }
    blocks
}

/// Whether `printed` is what the page shows, `...` matching any number of lines.
fn matches(shown: &[String], printed: &[&str]) -> bool {
    match shown.split_first() {
        None => printed.is_empty(),
        Some((first, rest)) if first == "..." => (0..=printed.len()).any(|k| matches(rest, &printed[k..])),
        Some((first, rest)) => printed.first().is_some_and(|p| p == first) && matches(rest, &printed[1..]),
    }
}

#[test]
fn runnable_blocks_print_what_the_page_shows() {
    let nhc = Path::new(env!("CARGO_BIN_EXE_nhc"));
    let path = format!("{}:{}", nhc.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    let mut readme_blocks = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let shown_page = page.strip_prefix(root()).unwrap().display().to_string();
        for (marker, steps) in runnable_blocks(&text) {
            if shown_page == "README.md" {
                readme_blocks += 1;
            }
            let dir = tempfile::tempdir().unwrap();
            for shared in ["models", "results"] {
                std::os::unix::fs::symlink(root().join(shared), dir.path().join(shared)).unwrap();
            }
            for step in steps {
                let out = Command::new("sh")
                    .args(["-c", &step.command])
                    .current_dir(dir.path())
                    .env("PATH", &path)
                    .output()
                    .unwrap();
                let printed = String::from_utf8_lossy(&out.stdout);
                let printed: Vec<&str> = printed.lines().collect();
                assert!(
                    matches(&step.shown, &printed),
                    "{shown_page}, the block marked at line {marker}: `{}` printed\n{}\nwhere the page shows\n{}\n(stderr: {})",
                    step.command,
                    printed.join("\n"),
                    step.shown.join("\n"),
                    String::from_utf8_lossy(&out.stderr)
                );
                ran += 1;
            }
        }
    }
    assert!(readme_blocks >= 2, "README.md has {readme_blocks} runnable blocks");
    assert!(ran > 0);
}

#[test]
fn the_wildcard_line_matches_any_lines() {
    let shown: Vec<String> = ["a", "...", "c"].map(String::from).to_vec();
    assert!(matches(&shown, &["a", "c"]) && matches(&shown, &["a", "b", "b", "c"]));
    assert!(!matches(&shown, &["a", "b"]) && !matches(&shown, &["b", "c"]));
    assert_eq!(
        slug("Learned from scratch under the paper's protocol: 11 tasks × 15 runs"),
        "learned-from-scratch-under-the-papers-protocol-11-tasks--15-runs"
    );
}

/// The README is a first page: at most 150 lines, details a link away.
#[test]
fn the_readme_is_a_first_page() {
    let lines = std::fs::read_to_string(root().join("README.md")).unwrap().lines().count();
    assert!(lines <= 150, "README.md has {lines} lines; at most 150 (move details to docs/)");
}
