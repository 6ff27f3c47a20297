//! Where each function of a Luau source begins and ends, by line, read from the text
//! alone. Luau's debug information gives a function's first line only, so `muster
//! check` finds the rest here to tell which lines a handler's code spans (a `<remove>`d
//! item read only inside handlers a mod dropped is never read).
//!
//! A small lexer, not a parser: it skips comments and strings (long, interpolated), and
//! matches `function`, `if`, `do`, `repeat` with their `end` (or `until`); an `if` that
//! begins an expression (`return if a then b else c`) has no `end`. Text it cannot match
//! yields no span for what is left open, never a wrong one for what closed.

/// A function's lines, 1-based and inclusive: `function` keyword to its `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn holds(self, line: u32) -> bool {
        self.start <= line && line <= self.end
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// A function, from this token.
    Function(usize),
    /// `if`, `do` (with `while`/`for`): closed by `end`.
    Block,
    Repeat,
    /// An `if` expression, until its `else`.
    IfExpr,
}

/// Tokens after which an `if` begins an expression, not a statement.
const EXPRESSION_BEFORE: &[&str] = &[
    "=", "(", ",", "{", "[", "return", "+", "-", "*", "/", "//", "%", "^", "..", "==", "~=", "<",
    ">", "<=", ">=", "and", "or", "not", "#", "+=", "-=", "*=", "/=", "//=", "%=", "^=", "..=",
    "in",
];

/// The spans of every function in `text`, in order of their start.
pub fn function_spans(text: &str) -> Vec<Span> {
    let tokens = tokens(text);
    let mut spans: Vec<Span> = functions(&tokens)
        .into_iter()
        .map(|(a, b)| Span {
            start: tokens[a].line,
            end: tokens[b].line,
        })
        .collect();
    spans.sort_by_key(|s| (s.start, s.end));
    spans
}

/// For the function whose `function` keyword begins `line` (the first there): its first
/// parameter's name and the keyword's column (1-based, in bytes) when its body never
/// names that parameter (a field `x.next` is not it). A `hooks.wrap` wrapper whose
/// `next` is unused drops the handler it wraps. `None` when the parameter is used, there
/// is none or it is `...`, or no function begins there.
pub fn unused_first_param(text: &str, line: u32) -> Option<(String, u32)> {
    let tokens = tokens(text);
    let (start, end) = functions(&tokens)
        .into_iter()
        .filter(|&(a, _)| tokens[a].line == line)
        .min_by_key(|&(a, _)| a)?;
    let open = (start..end).find(|&i| tokens[i].text == "(")?;
    let param = tokens.get(open + 1)?;
    if !param
        .text
        .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    {
        return None;
    }
    let mut depth = 0usize;
    let close = (open..end).find(|&i| {
        match tokens[i].text {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            _ => {}
        }
        depth == 0
    })?;
    let used = (close + 1..end)
        .any(|i| tokens[i].text == param.text && !matches!(tokens[i - 1].text, "." | ":"));
    (!used).then(|| (param.text.to_string(), tokens[start].col))
}

/// A token: its text (a string stands as one `"`), 1-based line and column (in bytes).
struct Token<'a> {
    text: &'a str,
    line: u32,
    col: u32,
}

/// Each function's `function` token and its `end` token, by index, in order of the end.
fn functions(tokens: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack: Vec<Open> = Vec::new();
    let mut prev: &str = "";
    // The `else` just read closed an `if` expression: an `if` after it is one too.
    let mut after_expr_else = false;
    for (i, token) in tokens.iter().enumerate() {
        let was_expr_else = std::mem::take(&mut after_expr_else);
        match token.text {
            "function" => stack.push(Open::Function(i)),
            "if" => {
                let in_expr = EXPRESSION_BEFORE.contains(&prev)
                    || (prev == "then" && stack.last() == Some(&Open::IfExpr))
                    || was_expr_else;
                stack.push(if in_expr { Open::IfExpr } else { Open::Block });
            }
            "do" => stack.push(Open::Block),
            "repeat" => stack.push(Open::Repeat),
            "else" if stack.last() == Some(&Open::IfExpr) => {
                stack.pop();
                after_expr_else = true;
            }
            "end" => {
                // An `if` expression never reaches an `end`: what is still open of them
                // was misread; drop it.
                while stack.last() == Some(&Open::IfExpr) {
                    stack.pop();
                }
                if let Some(Open::Function(start)) = stack.pop() {
                    out.push((start, i));
                }
            }
            "until" => {
                while stack.last() == Some(&Open::IfExpr) {
                    stack.pop();
                }
                if stack.last() == Some(&Open::Repeat) {
                    stack.pop();
                }
            }
            _ => {}
        }
        prev = token.text;
    }
    out
}

/// The words and punctuation of `text` with their 1-based lines; comments and strings
/// are left out, a string standing as one `"` token.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1u32;
    // Where the current line begins.
    let mut line_at = 0usize;
    let mut i = 0;
    fn token(text: &str, line: u32, line_at: usize, at: usize) -> Token<'_> {
        Token {
            text,
            line,
            col: u32::try_from(at - line_at + 1).unwrap_or(u32::MAX),
        }
    }
    // The line count and start after text from `from` to `to` (strings and comments
    // may span lines).
    let advance = |from: usize, to: usize, line: &mut u32, line_at: &mut usize| {
        for (k, &b) in bytes[from..to].iter().enumerate() {
            if b == b'\n' {
                *line += 1;
                *line_at = from + k + 1;
            }
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line += 1;
                i += 1;
                line_at = i;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                let end = match long_bracket(bytes, i + 2) {
                    Some(level) => close_long(bytes, i + 2, level),
                    None => bytes[i..]
                        .iter()
                        .position(|&c| c == b'\n')
                        .map_or(bytes.len(), |p| i + p),
                };
                advance(i, end, &mut line, &mut line_at);
                i = end;
            }
            b'[' if long_bracket(bytes, i).is_some() => {
                let level = long_bracket(bytes, i).unwrap_or(0);
                let end = close_long(bytes, i, level);
                out.push(token("\"", line, line_at, i));
                advance(i, end, &mut line, &mut line_at);
                i = end;
            }
            b'"' | b'\'' | b'`' => {
                let end = close_string(bytes, i);
                out.push(token("\"", line, line_at, i));
                advance(i, end, &mut line, &mut line_at);
                i = end;
            }
            _ if b.is_ascii_alphanumeric() || b == b'_' => {
                let len = bytes[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
                    .unwrap_or(bytes.len() - i);
                out.push(token(&text[i..i + len], line, line_at, i));
                i += len;
            }
            _ => {
                // Punctuation, longest first; a byte not in the list stands alone (a
                // non-ASCII byte is skipped to the next character boundary).
                let rest = &text[i..];
                let op = [
                    "..=", "//=", "...", "==", "~=", "<=", ">=", "..", "//", "+=", "-=", "*=",
                    "/=", "%=", "^=", "::", "->",
                ]
                .into_iter()
                .find(|op| rest.starts_with(op));
                let len =
                    op.map_or_else(|| rest.chars().next().map_or(1, char::len_utf8), str::len);
                out.push(token(&text[i..i + len], line, line_at, i));
                i += len;
            }
        }
    }
    out
}

/// `[[`, `[=[`, ...: the level (count of `=`) of a long bracket opening at `at`.
fn long_bracket(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'[') {
        return None;
    }
    let level = bytes[at + 1..].iter().take_while(|&&b| b == b'=').count();
    (bytes.get(at + 1 + level) == Some(&b'[')).then_some(level)
}

/// Just past the `]=*]` closing a long bracket of `level` opened at `at`, or the end.
fn close_long(bytes: &[u8], at: usize, level: usize) -> usize {
    let mut close = vec![b']'];
    close.extend(std::iter::repeat_n(b'=', level));
    close.push(b']');
    let from = at + level + 2;
    bytes[from.min(bytes.len())..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(bytes.len(), |p| from + p + close.len())
}

/// Just past the quote closing the string opened at `at` (a backtick string's `{...}`
/// holes are skipped with it, braces counted), or the line's end for an unclosed one.
fn close_string(bytes: &[u8], at: usize) -> usize {
    let quote = bytes[at];
    let mut i = at + 1;
    let mut braces = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'\n' if quote != b'`' && braces == 0 => return i,
            b'{' if quote == b'`' => braces += 1,
            b'}' if quote == b'`' && braces > 0 => braces -= 1,
            c if c == quote && braces == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(text: &str) -> Vec<(u32, u32)> {
        function_spans(text)
            .into_iter()
            .map(|s| (s.start, s.end))
            .collect()
    }

    #[test]
    fn functions_nested_and_blocks() {
        let text = "local M = {}\n\
                    function M.a(game)\n\
                    \tif x then\n\
                    \t\tfor i = 1, 3 do print(i) end\n\
                    \telseif y then return end\n\
                    \tlocal f = function() return 1 end\n\
                    \twhile true do repeat local z = 1 until z end\n\
                    end\n\
                    hooks.on('x', function(g)\n\
                    \treturn if g then 1 elseif h then 2 else if k then 3 else 4\n\
                    end)\n\
                    return M\n";
        assert_eq!(spans(text), [(2, 8), (6, 6), (9, 11)]);
    }

    #[test]
    fn comments_and_strings_hide_keywords() {
        let text = "-- function end if\n\
                    local s = \"function if do\"\n\
                    --[[ function\n\
                    do ]] local t = [==[ end\n\
                    function ]==]\n\
                    local function f(a)\n\
                    \tlocal u = `{a} function {if a then 1 else 2} end`\n\
                    \treturn 'end'\n\
                    end\n";
        assert_eq!(spans(text), [(6, 9)]);
    }

    #[test]
    fn a_first_parameter_never_named() {
        let text = "hooks.wrap('a', function(next, game)\n\treturn game.next\nend)\n\
                    hooks.wrap('b', function(next: (any) -> any, game)\n\treturn next(game)\nend)\n\
                    local function w(inner, ...) return inner(...) end\n\
                    hooks.wrap('c', function(...) return true end)\n";
        assert_eq!(unused_first_param(text, 1), Some(("next".to_string(), 17)));
        assert_eq!(unused_first_param(text, 4), None);
        assert_eq!(unused_first_param(text, 7), None);
        assert_eq!(unused_first_param(text, 8), None);
        assert_eq!(
            unused_first_param(text, 2),
            None,
            "no function begins there"
        );
    }

    #[test]
    fn unmatched_text_yields_no_wrong_span() {
        assert_eq!(
            spans("function a()\n\tif x then\nend\n"),
            Vec::<(u32, u32)>::new()
        );
        assert_eq!(spans("local x = 1\nend\nfunction b() end\n"), [(3, 3)]);
    }
}
