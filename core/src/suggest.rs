//! "Did you mean ...?" suggestions for misspelled names.

/// The candidate closest to `word`, if it is close enough to be a likely typo.
///
/// Comparison ignores case; an exact case-insensitive match always wins. See [`ranked`]
/// for the order.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    ranked(word, candidates).into_iter().next()
}

/// `box`, `boxe` and `boxes` all give `box`: what a name is without its plural ending.
fn stem(word: &str) -> (&str, bool) {
    if let Some(s) = word.strip_suffix("es").filter(|s| s.len() >= 2) {
        (s, true)
    } else if let Some(s) = word.strip_suffix('s').filter(|s| s.len() >= 2) {
        (s, true)
    } else {
        (word, false)
    }
}

/// How likely `cand` is what an author who wrote `word` meant: lower is likelier; `None`
/// if it is not a likely slip at all. The same word in another case first; then the same
/// word in the same number (`boxs` for `boxes`, not `box`: a plural was meant) or without
/// its qualifier (`may-enter` for `ahd.may-enter`); then a name the word begins
/// (`scen` for `scenarios`); then a near spelling (within a third of the length).
fn rank(lower: &str, cand: &str) -> Option<(u8, usize)> {
    let c = cand.to_lowercase();
    let d = strsim::damerau_levenshtein(lower, &c);
    if d == 0 {
        return Some((0, 0));
    }
    let (ws, wp) = stem(lower);
    let (cs, cp) = stem(&c);
    let unqualified = c.rsplit(['.', ':', '/']).next() == Some(lower)
        || lower.rsplit(['.', ':', '/']).next() == Some(c.as_str());
    if (ws == cs && wp == cp) || unqualified {
        return Some((1, d));
    }
    if lower.chars().count() >= 3 && c.starts_with(lower) {
        return Some((2, d));
    }
    let limit = (lower.chars().count().max(3) / 3).max(1);
    (d <= limit).then_some((3, d))
}

/// The likely meant candidates for `word`, likeliest first (ties keep the candidates'
/// order, so messages do not change from run to run).
pub fn ranked<'a, I>(word: &str, candidates: I) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let lower = word.to_lowercase();
    let mut found: Vec<((u8, usize), usize, &'a str)> = Vec::new();
    for (i, cand) in candidates.into_iter().enumerate() {
        if found.iter().any(|(_, _, c)| *c == cand) {
            continue;
        }
        if let Some(r) = rank(&lower, cand) {
            found.push((r, i, cand));
        }
    }
    found.sort_by_key(|&(r, i, _)| (r, i));
    found.into_iter().map(|(_, _, c)| c).collect()
}

/// `did you mean 'a'?`, or `did you mean 'a', 'b' or 'c'?` when several are as likely
/// a slip (at most three, likeliest first): for ids, where a near name may be any of a few.
pub fn did_you_mean_any<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let found = ranked(word, candidates);
    let shown: Vec<String> = found.iter().take(3).map(|c| format!("'{c}'")).collect();
    match shown.as_slice() {
        [] => None,
        [one] => Some(format!("did you mean {one}?")),
        [init @ .., last] => Some(format!("did you mean {} or {last}?", init.join(", "))),
    }
}

/// A ready-made hint: `did you mean 'X'?`.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    closest(word, candidates).map(|c| format!("did you mean '{c}'?"))
}

/// How many names [`known_like`] lists at most.
const LISTED: usize = 6;

/// For a name with no likely typo: the known names sharing its longest prefix (at least
/// its first letter), so an author who misremembers a name sees the real ones nearby,
/// e.g. `no such name; known names starting with 'Ha': Harper's Ferry, Harrisburg`.
pub fn known_like<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let lower: Vec<char> = word.trim().to_lowercase().chars().collect();
    let mut names: Vec<&str> = candidates.into_iter().collect();
    names.sort_unstable();
    names.dedup();
    let shared = |name: &str| {
        name.to_lowercase()
            .chars()
            .zip(&lower)
            .take_while(|(a, b)| a == *b)
            .count()
    };
    let best = names.iter().map(|n| shared(n)).max().filter(|&n| n > 0)?;
    let like: Vec<&str> = names.into_iter().filter(|n| shared(n) == best).collect();
    let prefix: String = word.trim().chars().take(best).collect();
    let mut listed = like[..like.len().min(LISTED)].join(", ");
    if like.len() > LISTED {
        listed.push_str(&format!(" and {} more", like.len() - LISTED));
    }
    Some(format!("known names starting with '{prefix}': {listed}"))
}

/// [`did_you_mean`], or else [`known_like`].
pub fn hint<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str> + Clone,
{
    did_you_mean(word, candidates.clone()).or_else(|| known_like(word, candidates))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_no_typo_near_lists_the_names_sharing_its_start() {
        let names = ["Harrisburg", "Harper's Ferry", "Helena", "Nashville"];
        assert_eq!(
            hint("Houston", names),
            Some("known names starting with 'H': Harper's Ferry, Harrisburg, Helena".into())
        );
        assert_eq!(
            hint("Hartford", names),
            Some("known names starting with 'Har': Harper's Ferry, Harrisburg".into())
        );
        assert_eq!(
            hint("Nashvile", names),
            Some("did you mean 'Nashville'?".into())
        );
        assert_eq!(hint("Zanesville", names), None);
        let many: Vec<String> = (0..9).map(|i| format!("Box {i}")).collect();
        assert_eq!(
            known_like("Bog", many.iter().map(String::as_str)),
            Some("known names starting with 'Bo': Box 0, Box 1, Box 2, Box 3, Box 4, Box 5 and 3 more".into())
        );
    }

    #[test]
    fn finds_typos_and_case() {
        let names = ["Nashville", "Natchez", "Richmond"];
        assert_eq!(closest("Nashvile", names), Some("Nashville"));
        assert_eq!(closest("richmond", names), Some("Richmond"));
        assert_eq!(closest("Atlanta", names), None);
        assert_eq!(closest("kidn", ["kind", "a", "b"]), Some("kind"));
    }

    #[test]
    fn ranks_what_was_meant_above_the_nearest_spelling() {
        // `boxs` is one edit from `box` and two from `boxes`, but a plural was meant.
        assert_eq!(closest("boxs", ["box", "boxes", "sides"]), Some("boxes"));
        assert_eq!(closest("box", ["boxes", "box"]), Some("box"));
        // An id without its module's prefix.
        assert_eq!(
            closest("may-enter", ["ahd.may-rail", "ahd.may-enter"]),
            Some("ahd.may-enter")
        );
        assert_eq!(closest("scen", ["sides", "scenarios"]), Some("scenarios"));
        assert_eq!(
            did_you_mean_any("ahd.may-entr", ["ahd.may-exit", "ahd.may-enter", "x"]),
            Some("did you mean 'ahd.may-enter' or 'ahd.may-exit'?".into())
        );
        assert_eq!(
            did_you_mean_any("ahd.move", ["ahd.moves", "ahd.mover", "ahd.mov"]),
            Some("did you mean 'ahd.moves', 'ahd.mover' or 'ahd.mov'?".into())
        );
    }
}
