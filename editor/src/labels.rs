//! Box names at any zoom: each name's shorter forms, every one unique on the map (two
//! boxes never read the same: "Charleston SC" and "Charleston WV", not "Charl." twice),
//! and a greedy placer that gives each name the longest form that neither runs far out
//! of its box nor covers a name placed before it.

use std::collections::HashMap;

use egui::Rect;

/// A name's main words and its qualifier shortened: "Charleston (South Carolina)" ->
/// (["Charleston"], "SC"), "Columbus, Ga." -> (["Columbus"], "Ga"), "Springfield
/// (Missouri)" -> (["Springfield"], "Mi").
fn parts(name: &str) -> (Vec<&str>, String) {
    let (main, qual) = if let Some((m, q)) = name.split_once(" (") {
        (m, q.trim_end_matches(')'))
    } else if let Some((m, q)) = name.split_once(", ") {
        (m, q)
    } else {
        (name, "")
    };
    let words: Vec<&str> = qual.split_whitespace().collect();
    let qual = if words.len() > 1 {
        words.iter().filter_map(|w| w.chars().next()).collect()
    } else {
        let letters: String = qual.chars().filter(|c| c.is_alphabetic()).collect();
        // "W.V." is initials already; "Missouri" keeps two letters.
        if qual.contains('.') && letters.chars().all(char::is_uppercase) {
            letters
        } else {
            letters.chars().take(2).collect()
        }
    };
    (main.split_whitespace().collect(), qual)
}

/// Every shorter form of `name`, longest first (before the uniqueness filter).
fn forms(name: &str) -> Vec<String> {
    let (main, qual) = parts(name);
    let with = |m: &str| {
        if qual.is_empty() {
            m.to_string()
        } else {
            format!("{m} {qual}")
        }
    };
    let mut out = vec![name.to_string(), with(&main.join(" ")), main.join(" ")];
    // The longest word is cut, the last of equals (the distinguishing one: "Fort Monr.").
    if let Some((w, word)) = main
        .iter()
        .enumerate()
        .max_by_key(|(_, w)| w.chars().count())
    {
        let chars: Vec<char> = word.chars().collect();
        // Four letters at least: "Cha." reads as nothing.
        for k in (4..chars.len()).rev() {
            let mut cut = main.clone();
            let short = chars[..k].iter().collect::<String>() + ".";
            cut[w] = &short;
            let joined = cut.join(" ");
            out.push(with(&joined));
            out.push(joined);
        }
    }
    let mut seen = Vec::new();
    out.retain(|f| {
        let new = !seen.contains(f);
        seen.push(f.clone());
        new
    });
    out
}

/// Each name's forms that no other name shares, longest first; the full name is always
/// the first.
pub fn abbreviations(names: &[&str]) -> Vec<Vec<String>> {
    let all: Vec<Vec<String>> = names.iter().map(|n| forms(n)).collect();
    let mut owners: HashMap<&str, usize> = HashMap::new();
    for list in &all {
        for f in list {
            *owners.entry(f.as_str()).or_default() += 1;
        }
    }
    all.iter()
        .zip(names)
        .map(|(list, name)| {
            let mut unique: Vec<String> = list
                .iter()
                .filter(|f| owners.get(f.as_str()) == Some(&1))
                .cloned()
                .collect();
            if unique.first().map(String::as_str) != Some(name) {
                unique.insert(0, name.to_string());
            }
            unique
        })
        .collect()
}

/// The clear space kept between two placed labels, in screen points.
const GAP: f32 = 2.0;

/// The labels placed so far, on screen.
#[derive(Default)]
pub struct Placer {
    placed: Vec<Rect>,
}

impl Placer {
    /// Whether `r` comes no nearer than [`GAP`] to a label placed before.
    pub fn is_free(&self, r: Rect) -> bool {
        !self.placed.iter().any(|p| p.intersects(r.expand(GAP)))
    }

    pub fn take(&mut self, r: Rect) {
        self.placed.push(r);
    }
}

/// Places labels one after another: each takes the first of its options (rects on
/// screen, best first) that is free of the labels placed before it; if none is, its
/// last (the last resort) anyway, so no name is ever missing. (The map asks its
/// options one at a time, laying out only as many forms as it needs; this is the same
/// rule on a list.)
pub fn place(options: &[Vec<Rect>]) -> Vec<usize> {
    let mut placer = Placer::default();
    options
        .iter()
        .map(|opts| {
            let pick = opts
                .iter()
                .position(|r| placer.is_free(*r))
                .unwrap_or(opts.len().saturating_sub(1));
            if let Some(r) = opts.get(pick) {
                placer.take(*r);
            }
            pick
        })
        .collect()
}

/// [`abbreviations`] kept while the names stay the same (they change only when the
/// map is edited), so a frame does not work them out again.
#[derive(Clone, Debug, Default)]
pub struct FormsCache {
    key: u64,
    forms: Vec<Vec<String>>,
}

impl FormsCache {
    pub fn get(&mut self, names: &[&str]) -> &[Vec<String>] {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        names.hash(&mut h);
        let key = h.finish();
        if key != self.key || self.forms.len() != names.len() {
            self.forms = abbreviations(names);
            self.key = key;
        }
        &self.forms
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{pos2, vec2};

    #[test]
    fn names_sharing_a_start_get_abbreviations_that_differ() {
        let names = [
            "Charleston (South Carolina)",
            "Charleston, W.V.",
            "Charlotte",
            "Columbus",
            "Columbus, Ga.",
            "Columbia",
            "Fort Monroe",
            "Fort Smith",
            "Fort Wayne",
        ];
        let abbr = abbreviations(&names);
        // Every form belongs to one name only.
        let mut seen = HashMap::new();
        for (i, list) in abbr.iter().enumerate() {
            assert_eq!(list[0], names[i], "the full name comes first");
            for f in list {
                if let Some(j) = seen.insert(f.clone(), i) {
                    panic!("'{f}' reads as both {} and {}", names[j], names[i]);
                }
            }
        }
        let shortest = |i: usize| abbr[i].last().unwrap().clone();
        assert_eq!(shortest(0), "Char. SC");
        assert_eq!(shortest(1), "Char. WV");
        assert_eq!(shortest(6), "Fort Monr.");
        // Columbus is all of "Columbus, Ga."'s main word: it keeps its whole name.
        assert_eq!(shortest(3), "Columbus");
        assert_eq!(shortest(4), "Colu. Ga");
        assert_eq!(shortest(5), "Columbi.");
        assert_eq!(shortest(2), "Charlo.");
    }

    #[test]
    fn a_name_that_would_cover_another_takes_a_shorter_form() {
        let long = Rect::from_min_size(pos2(0.0, 0.0), vec2(100.0, 10.0));
        let short = Rect::from_min_size(pos2(0.0, 0.0), vec2(40.0, 10.0));
        let neighbour_long = Rect::from_min_size(pos2(60.0, 0.0), vec2(100.0, 10.0));
        let neighbour_short = Rect::from_min_size(pos2(60.0, 0.0), vec2(40.0, 10.0));
        let far = Rect::from_min_size(pos2(500.0, 0.0), vec2(100.0, 10.0));
        let picks = place(&[
            vec![long, short],
            vec![neighbour_long, neighbour_short],
            vec![far],
        ]);
        assert_eq!(
            picks,
            vec![0, 1, 0],
            "the second shortens, the far one keeps its name"
        );
    }
}
