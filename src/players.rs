//! Who plays a side or a seat, as the command line says it: the kinds of player, how a
//! strong player searches, the parsers of `SIDE=KIND`, `SIDE=LEVEL` and their `SEAT=`
//! forms, each seat's player from them, and the one mapping from a kind of player to a
//! computer player (`muster play`, `muster pbem play`).

use muster_ai::Level;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlayerKind {
    Human,
    Random,
    /// The simple greedy baseline computer player.
    Greedy,
    /// The default computer player.
    Ai,
    /// The search player: the default one with each march chosen by rollouts
    /// (`--strong-budget`, `--strong-opening`).
    Strong,
}

impl PlayerKind {
    /// The computer player of this kind, `None` for a human. A strong one searches as
    /// `strong` says on `threads` threads, its rollouts on rules of their own (they log
    /// nothing at the terminal); other kinds ignore both.
    pub fn computer(
        self,
        strong: StrongArgs,
        seed: u64,
        threads: usize,
    ) -> Option<Box<dyn muster_ai::Player>> {
        let level = match self {
            PlayerKind::Human => return None,
            PlayerKind::Random => Level::Random,
            PlayerKind::Greedy => Level::Greedy,
            PlayerKind::Ai => Level::Ai,
            PlayerKind::Strong => strong.level(),
        };
        Some(muster_ai::player_with(
            level,
            seed,
            threads,
            Some(search_rules()),
        ))
    }
}

/// Fresh scripted rules for a search player's rollouts.
pub fn search_rules() -> muster_ai::search::RulesFactory {
    muster_scripting::loader(muster_scripting::Limits::default())
}

/// How a strong player searches: `--strong-budget` and `--strong-opening`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct StrongArgs {
    /// Rollouts per march decision of a strong player, shared among the marches it weighs (1-2000).
    #[arg(long = "strong-budget", value_name = "N", default_value_t = muster_ai::search::DEFAULT_BUDGET, value_parser = parse_budget)]
    budget: u32,
    /// Turns from the scenario's start a strong player searches wider and deeper (three
    /// times the rollouts, each a player turn longer): several times slower, and not
    /// measured to play stronger than the default (0-1000; 0, the default, for none).
    #[arg(long = "strong-opening", value_name = "TURNS", default_value_t = 0, value_parser = parse_opening)]
    opening: u32,
}

impl StrongArgs {
    pub fn level(self) -> Level {
        Level::Strong {
            budget: self.budget,
            opening: self.opening,
        }
    }
}

pub fn parse_player(s: &str) -> Result<(String, PlayerKind), String> {
    let (side, kind) = s
        .split_once('=')
        .ok_or("write SIDE=KIND, e.g. union=random")?;
    let kind = <PlayerKind as clap::ValueEnum>::from_str(kind, true).map_err(|_| {
        format!("'{kind}' is not a kind of player: human, random, greedy, ai or strong")
    })?;
    Ok((side.to_string(), kind))
}

/// `SEAT=KIND` for `--seat`.
pub fn parse_seat_player(s: &str) -> Result<(String, PlayerKind), String> {
    if !s.contains('=') {
        return Err("write SEAT=KIND, e.g. union-east=ai".into());
    }
    parse_player(s)
}

/// `SEAT=LEVEL` for `--seat`.
pub fn parse_seat_level(s: &str) -> Result<(String, Level), String> {
    if !s.contains('=') {
        return Err("write SEAT=LEVEL, e.g. union-east=strong".into());
    }
    parse_side_level(s)
}

/// A seat by id, or an error listing the module's seats.
pub fn seat(module: &muster_core::Module, id: &str) -> anyhow::Result<muster_core::ids::SeatId> {
    module.find_seat(id).ok_or_else(|| {
        let ids: Vec<&str> = module.seats.iter().map(|s| s.id.as_str()).collect();
        anyhow::anyhow!(
            "'{id}' is not a seat of {}: its seats are {}",
            module.id,
            ids.join(", ")
        )
    })
}

/// Each seat's player, in seat order: `default` unless a side's (`by_side`, every seat of
/// the side) or the seat's own (`by_seat`, after) is given.
pub fn seat_choices<T: Copy>(
    module: &muster_core::Module,
    default: T,
    by_side: &[(String, T)],
    by_seat: &[(String, T)],
) -> anyhow::Result<Vec<T>> {
    let mut out = vec![default; module.seats.len()];
    for (side, kind) in by_side {
        let side = crate::rules::side(module, side)?;
        for s in module.seats_of(side) {
            out[s.index()] = *kind;
        }
    }
    for (id, kind) in by_seat {
        out[seat(module, id)?.index()] = *kind;
    }
    Ok(out)
}

/// [`seat_choices`] of players at the terminal: human by default.
pub fn seat_kinds(
    module: &muster_core::Module,
    by_side: &[(String, PlayerKind)],
    by_seat: &[(String, PlayerKind)],
) -> anyhow::Result<Vec<PlayerKind>> {
    seat_choices(module, PlayerKind::Human, by_side, by_seat)
}

pub fn parse_level(s: &str) -> Result<Level, String> {
    Level::parse(s)
        .ok_or_else(|| format!("'{s}' is not a computer player: strong, ai, greedy or random"))
}

pub fn parse_side_level(s: &str) -> Result<(String, Level), String> {
    let (side, level) = s
        .split_once('=')
        .ok_or("write SIDE=LEVEL, e.g. union=greedy")?;
    Ok((side.to_string(), parse_level(level)?))
}

fn parse_opening(s: &str) -> Result<u32, String> {
    let range = format!("0-{}", muster_ai::search::MAX_OPENING);
    parse_count(s, "turns", &range, muster_ai::search::check_opening)
}

fn parse_budget(s: &str) -> Result<u32, String> {
    let range = format!("1-{}", muster_ai::search::MAX_BUDGET);
    parse_count(s, "rollouts", &range, muster_ai::search::check_budget)
}

/// A count given by a person, `check`ed: "'x' is not a number of `what` (`range`)".
fn parse_count(
    s: &str,
    what: &str,
    range: &str,
    check: fn(u64) -> Result<u32, String>,
) -> Result<u32, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number of {what} ({range})"))?;
    check(n)
}

pub fn parse_search_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n @ 1..=64) => Ok(n),
        _ => Err(format!("'{s}' is not a number of search threads (1-64)")),
    }
}
