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
}
