//! "Did you mean ...?" suggestions for misspelled names.

/// The candidate closest to `word`, if it is close enough to be a likely typo.
///
/// Comparison ignores case; an exact case-insensitive match always wins.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let lower = word.to_lowercase();
    let limit = (lower.chars().count().max(3) / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for cand in candidates {
        let d = strsim::damerau_levenshtein(&lower, &cand.to_lowercase());
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, cand));
        }
    }
    best.map(|(_, c)| c)
}

/// A ready-made hint: `did you mean 'X'?`.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    closest(word, candidates).map(|c| format!("did you mean '{c}'?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_and_case() {
        let names = ["Nashville", "Natchez", "Richmond"];
        assert_eq!(closest("Nashvile", names), Some("Nashville"));
        assert_eq!(closest("richmond", names), Some("Richmond"));
        assert_eq!(closest("Atlanta", names), None);
        assert_eq!(closest("kidn", ["kind", "a", "b"]), Some("kind"));
    }
}
