//! The one error type of the crate, and the mapping from `mlua` errors to it.

use thiserror::Error;

/// What `hook` holds in an error raised while the bundle loads (top-level code of a script).
pub const LOADING: &str = "(load)";

/// Everything that can go wrong with a script. Each message names the script file and line
/// where Luau gives one (`rules/jump.luau:12: ...`) and the hook that was running.
#[derive(Clone, Debug, Error)]
pub enum ScriptError {
    /// The bundle could not be read (missing or unreadable file, bad entry path, bad catalogue).
    #[error("{file}: {message}")]
    Load { file: String, message: String },

    /// A script does not compile; `message` starts with `file:line:` as Luau reports it.
    #[error("{message}")]
    Syntax {
        file: String,
        line: Option<u32>,
        message: String,
    },

    /// A script raised an error. `message` is Luau's (`rules/jump.luau:12: attempt to ...`);
    /// `traceback` is the Lua stack at that point, for logs.
    #[error("{message} (in hook '{hook}')")]
    Runtime {
        hook: String,
        message: String,
        traceback: String,
    },

    /// A call used up its instruction budget (or, as a backstop, its wall-clock time).
    /// `message` starts with the `file:line:` that was running when it was stopped.
    #[error("{message} ({})", in_hook(hook, handler))]
    Budget {
        hook: String,
        /// `file:line` where the handler that was running is defined; empty while loading.
        handler: String,
        message: String,
    },

    /// The Lua heap reached its limit.
    #[error(
        "script ran out of memory (limit {limit} bytes): {message} ({})",
        in_hook(hook, handler)
    )]
    Memory {
        hook: String,
        /// `file:line` where the handler that was running is defined; while loading,
        /// where the script was last seen running, if it ran long enough to be seen.
        handler: String,
        limit: usize,
        message: String,
    },

    /// A handler returned something its hook cannot use.
    #[error("hook '{hook}': handler at {handler} {message}")]
    BadReturn {
        hook: String,
        /// `file:line` where the handler function is defined.
        handler: String,
        message: String,
    },

    /// A hook name that is not in the engine's catalogue (or is used as the wrong kind).
    #[error("{at}unknown hook '{name}'{}", hint.as_deref().map(|h| format!("; {h}")).unwrap_or_default())]
    UnknownHook {
        name: String,
        /// A "did you mean" or an explanation, if any.
        hint: Option<String>,
        /// `file:line: ` of the registration, empty when the engine asked.
        at: String,
    },

    /// `require` was refused: bad module name, missing file, cycle, or too late.
    #[error("{at}require('{name}'): {message} (in hook '{hook}')")]
    Require {
        hook: String,
        name: String,
        message: String,
        /// `file:line: ` of the `require` call.
        at: String,
    },
}

impl ScriptError {
    /// The hook this error happened in, if it happened while running one.
    pub fn hook(&self) -> Option<&str> {
        match self {
            Self::Runtime { hook, .. }
            | Self::Budget { hook, .. }
            | Self::Memory { hook, .. }
            | Self::BadReturn { hook, .. }
            | Self::Require { hook, .. } => Some(hook),
            _ => None,
        }
    }
}

/// `in hook 'h', handler at f:l` (or `in hook 'h'` when no handler was running): where a
/// stop happened, since the budget and the heap are shared by every handler of a call.
fn in_hook(hook: &str, handler: &str) -> String {
    if hook == LOADING && !handler.is_empty() {
        format!("while the rules load, last at {handler}")
    } else if handler.is_empty() {
        format!("in hook '{hook}'")
    } else {
        format!("in hook '{hook}', handler at {handler}")
    }
}

/// Facts about the sandbox needed to classify an `mlua` error.
pub(crate) struct Context<'a> {
    pub hook: &'a str,
    /// `file:line` of the handler that was running, or empty.
    pub handler: &'a str,
    /// `Some(message)` if the budget ran out during the call.
    pub budget: Option<String>,
    pub memory_limit: usize,
}

/// Turns an error from a Lua call into a [`ScriptError`].
///
/// A spent budget wins over whatever the script made of the error (it may have caught it
/// with `pcall` and raised something else); then a [`ScriptError`] raised by one of our
/// callbacks (`require`, `hooks.on`) is returned as it was; then memory and syntax errors.
pub(crate) fn classify(err: &mlua::Error, cx: &Context<'_>) -> ScriptError {
    let hook = cx.hook.to_string();
    if let Some(message) = &cx.budget {
        return ScriptError::Budget {
            hook,
            handler: cx.handler.to_string(),
            message: message.clone(),
        };
    }
    if let Some(inner) = err.downcast_ref::<ScriptError>() {
        let mut inner = inner.clone();
        if let ScriptError::Require { hook: h, .. } = &mut inner {
            h.clone_from(&hook);
        }
        return inner;
    }
    let root = root_cause(err);
    match root {
        mlua::Error::MemoryError(message) => ScriptError::Memory {
            hook,
            handler: cx.handler.to_string(),
            limit: cx.memory_limit,
            message: message.clone(),
        },
        mlua::Error::SyntaxError { message, .. } => syntax(message),
        _ => {
            let (message, traceback) = split_traceback(&display_root(root));
            let message = truncate(message, MAX_MESSAGE);
            let traceback = match traceback_of(err) {
                Some(t) if traceback.is_empty() => t,
                _ => traceback,
            };
            let message = through_wrappers(message, &traceback);
            ScriptError::Runtime {
                hook,
                message,
                traceback,
            }
        }
    }
}

/// An error raised inside a wrapped handler (a base's, say), reached through the `next`
/// of a `hooks.wrap`, with the line of each wrapper's call of `next`, innermost first:
/// the error's own line is in the handler, the mistake often in the call (a bad
/// argument). A wrap's `next` is `muster:3` in the traceback (`hooks.rs`'s compose), and
/// the frame after it is the wrapper's line that called it.
fn through_wrappers(message: String, traceback: &str) -> String {
    let frames: Vec<&str> = traceback
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("stack traceback"))
        .collect();
    let calls: Vec<&str> = frames
        .windows(2)
        .filter(|w| w[0].starts_with("muster:") && w[0].ends_with("in function 'next'"))
        .filter_map(|w| w[1].split_once(": in ").map(|(at, _)| at))
        .filter(|at| !at.starts_with("muster:") && !at.starts_with('['))
        .collect();
    if calls.is_empty() {
        return message;
    }
    let list: Vec<String> = calls.iter().map(|c| format!("next(...) at {c}")).collect();
    format!(
        "{message}; reached through hooks.wrap: {}",
        list.join(", called by ")
    )
}

/// A syntax error whose message starts with `file:line:`.
pub(crate) fn syntax(message: &str) -> ScriptError {
    let (file, line) = file_line(message);
    ScriptError::Syntax {
        file,
        line,
        message: message.to_string(),
    }
}

/// Longest error message kept (a script may raise megabytes).
const MAX_MESSAGE: usize = 2000;

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str("...");
    }
    s
}

/// `("rules/a.luau", Some(3))` from `"rules/a.luau:3: ..."`.
fn file_line(message: &str) -> (String, Option<u32>) {
    let mut parts = message.splitn(3, ':');
    let file = parts.next().unwrap_or_default().to_string();
    let line = parts.next().and_then(|l| l.trim().parse().ok());
    (file, line)
}

/// The innermost error of a chain of callback errors and contexts.
fn root_cause(err: &mlua::Error) -> &mlua::Error {
    let mut err = err;
    loop {
        match err {
            mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
                err = cause;
            }
            _ => return err,
        }
    }
}

/// The outermost traceback mlua attached to a callback error, if any.
fn traceback_of(err: &mlua::Error) -> Option<String> {
    match err {
        mlua::Error::CallbackError { traceback, .. } => Some(traceback.clone()),
        _ => None,
    }
}

/// The message without mlua's `runtime error: ` prefix.
fn display_root(err: &mlua::Error) -> String {
    match err {
        mlua::Error::RuntimeError(msg) => msg.clone(),
        other => other.to_string(),
    }
}

/// Luau appends `stack traceback:` to runtime errors; keep it apart from the message.
fn split_traceback(text: &str) -> (String, String) {
    match text.find("\nstack traceback:") {
        Some(i) => (
            text[..i].trim_end().to_string(),
            text[i + 1..].trim_end().to_string(),
        ),
        None => (text.trim_end().to_string(), String::new()),
    }
}

/// For Luau's "Expected 'end'" (or `'until'`): which block the author left open, read
/// from the indentation, since Luau's parser pairs each `end` with the innermost block and
/// so blames the block whose `end` was taken. The first `end` that stands at the start of
/// a line indented less than the block it closes belongs to an outer block: the block it
/// was given to is the one not closed. `None` when the message is not about a missing
/// `end` or the indentation does not tell.
pub(crate) fn unclosed_block(source: &str, message: &str) -> Option<String> {
    if !message.contains("Expected 'end'") && !message.contains("Expected 'until'") {
        return None;
    }
    // (keyword, line, indentation of its line)
    let mut open: Vec<(&str, usize, usize)> = Vec::new();
    let mut header = false; // after `for`/`while`: its `do` opens no block of its own
    for (kw, line, first, indent) in keywords(source) {
        match kw {
            "function" | "if" | "repeat" => open.push((kw, line, indent)),
            "for" | "while" => {
                open.push((kw, line, indent));
                header = true;
            }
            "do" if header => header = false,
            "do" => open.push((kw, line, indent)),
            "end" | "until" => {
                let (block, at, block_indent) = open.pop()?;
                if first && indent < block_indent {
                    return Some(format!(
                        "the '{block}' at line {at} is not closed: the '{kw}' at line {line} is indented as an outer block's; add its 'end'"
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// The block keywords of a Luau source outside strings and comments, each with its line,
/// whether it starts its line, and that line's indentation (a tab counts 4).
fn keywords(source: &str) -> Vec<(&str, usize, bool, usize)> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut indent, mut first) = (0, 1, 0, true);
    let mut at_start = true; // only whitespace so far on this line
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\n' {
            line += 1;
            (indent, at_start, first) = (0, true, true);
            i += 1;
            continue;
        }
        if at_start && (c == b' ' || c == b'\t') {
            indent += if c == b'\t' { 4 } else { 1 };
            i += 1;
            continue;
        }
        at_start = false;
        let rest = &source[i..];
        // Long brackets: [[...]], [==[...]==], and --[[...]] comments.
        let long = |from: usize| -> Option<usize> {
            let r = &source[from..];
            let eq = r
                .strip_prefix('[')?
                .bytes()
                .take_while(|&b| b == b'=')
                .count();
            r[1 + eq..].starts_with('[').then_some(eq)
        };
        let skip_long = |from: usize, eq: usize| -> usize {
            let close = format!("]{}]", "=".repeat(eq));
            source[from..]
                .find(&close)
                .map_or(source.len(), |j| from + j + close.len())
        };
        let skipped_to = if rest.starts_with("--") {
            match long(i + 2) {
                Some(eq) => skip_long(i + 2, eq),
                None => rest.find('\n').map_or(source.len(), |j| i + j),
            }
        } else if let Some(eq) = long(i) {
            skip_long(i, eq)
        } else if c == b'"' || c == b'\'' || c == b'`' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c && bytes[j] != b'\n' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            (j + 1).min(bytes.len())
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            let word = &rest[..len];
            let after_dot = i > 0 && matches!(bytes[i - 1], b'.' | b':');
            if !after_dot
                && matches!(
                    word,
                    "function" | "if" | "for" | "while" | "do" | "repeat" | "until" | "end"
                )
            {
                out.push((word, line, first, indent));
            }
            first = false;
            i += len;
            continue;
        } else {
            i + rest.chars().next().map_or(1, char::len_utf8)
        };
        // Lines passed inside a comment or a string.
        line += bytes[i..skipped_to].iter().filter(|&&b| b == b'\n').count();
        first = false;
        i = skipped_to;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_file_line_and_traceback() {
        assert_eq!(
            file_line("rules/a.luau:3: oops"),
            ("rules/a.luau".to_string(), Some(3))
        );
        let (m, t) = split_traceback("a.luau:1: x\nstack traceback:\n\t[C]: in ?");
        assert_eq!(m, "a.luau:1: x");
        assert!(t.starts_with("stack traceback:"));
    }

    #[test]
    fn names_the_block_left_open_by_its_indentation() {
        let expected = "x.luau:9: Expected 'end' (to close 'function' at line 1), got <eof>";
        // The `if` at line 2 lost its `end`: the `end` at line 4 stands where the
        // function's would.
        let src = "local function f(x)\n  if x then -- an end here\n    return \"end\"\nend\n\nhooks.on(\"h\", function()\n  return true\nend)\n";
        assert_eq!(
            unclosed_block(src, expected).as_deref(),
            Some(
                "the 'if' at line 2 is not closed: the 'end' at line 4 is indented as an outer block's; add its 'end'"
            )
        );
        let src = "for i = 1, 3 do\n  while true do\n    break\nend\n";
        assert!(
            unclosed_block(src, expected)
                .unwrap()
                .starts_with("the 'while' at line 2")
        );
        // Well indented, every block closed: nothing to say.
        let src = "if a then\n  b()\nend\n";
        assert_eq!(unclosed_block(src, expected), None);
        assert_eq!(unclosed_block(src, "x.luau:1: Expected '='"), None);
    }
}
