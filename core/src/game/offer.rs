//! Offers: decisions a game's rules add to the engine's procedures ("entrench for a
//! march", "buy an entrenchment for 2 PU", "place General Lee"). The rules list them
//! (the `offers` hook) for the side to act; taking one is an [`Action::Take`] that the
//! engine checks against a fresh list, pays for, records like any other action, and
//! reports to the rules (`offer_taken`), whose commands do what the offer means.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::entry::{self, Entry, Form};
use super::fight::{self, Fought};
use super::flow::notify;
use super::rules::{Event, RuleError, Rules, View, Wanted};
use super::state::GameState;
use crate::ids::{BoxId, ResourceId, SeatId, SideId, UnitId};
use crate::module::Module;

/// One decision the rules offer now.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Offer {
    /// What kind of decision it is, in the rules' words (`entrench`, `sea-move`).
    pub id: String,
    /// How a player sees it, e.g. `entrench Veteran Infantry #3 in Richmond`.
    pub label: String,
    /// The piece it concerns, if any.
    pub unit: Option<UnitId>,
    /// The box it concerns, if any.
    pub at: Option<BoxId>,
    /// What taking it costs the deciding side; each amount at least 0.
    pub cost: Vec<(ResourceId, i64)>,
    /// The seat it is addressed to, if not the side on move's (a response out of
    /// turn, a referee's entry); its side pays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<SeatId>,
    /// The fields the seat taking it enters (a referee's battle result), if any; see
    /// [`super::entry`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub form: Form,
    /// The values entered, once it is taken (what `offer_taken` reads); none as listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<Entry>,
    /// The computer referee has the engine's battle procedure fight the battle in the
    /// offer's box first (on a copy, with the game's dice; [`super::fight`]) and reads
    /// the outcome in [`Offer::fought`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fight: bool,
    /// The outcome of that battle, while `referee_entry` is asked; none otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fought: Option<Fought>,
    /// Why the rules close this decision now, naming their rule ("L406: a fort of 3 may
    /// not be bombarded"): a closed offer is never listed nor taken, and a `Take` of it
    /// is refused with this reason. Rules list closed offers only for the `Take` being
    /// checked (`wanted`), so listing the open ones pays nothing for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

impl Offer {
    /// The action that takes this offer.
    pub fn action(&self) -> Action {
        Action::Take {
            offer: self.id.clone(),
            unit: self.unit,
            at: self.at,
            label: self.label.clone(),
            seat: self.seat,
            entry: None,
        }
    }

    /// Whether `action` takes this offer: same id, piece, box and seat (the label is for
    /// people and may change with the rules' wording).
    pub(crate) fn taken_by(&self, action: &Action) -> bool {
        matches!(action, Action::Take { offer, unit, at, seat, .. }
            if *offer == self.id && *unit == self.unit && *at == self.at && *seat == self.seat)
    }

    /// The side that pays for it: its seat's, or the side on move's (a referee's
    /// offers cost nothing, whatever they say).
    pub fn payer(&self, module: &Module, state: &GameState) -> Option<SideId> {
        match self.seat {
            Some(seat) => module.seats.get(seat.index()).and_then(|s| s.side),
            None => Some(state.active_side(module)),
        }
    }

    /// Whether the deciding side can pay for it.
    fn affordable(&self, module: &Module, state: &GameState) -> bool {
        let Some(side) = self.payer(module, state) else {
            return true;
        };
        self.cost.iter().all(|&(r, n)| state.resource(side, r) >= n)
    }
}

/// The id of the step whose offers are open now: none during a battle (its procedure
/// owns every decision, unless the rules wait for a seat's answer) or once the game is
/// over.
fn offering_step<'m>(module: &'m Module, state: &GameState) -> Option<&'m str> {
    let step = state.current_step(module)?;
    if state.waiting.is_empty() && state.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
        return None;
    }
    Some(&step.id)
}

/// The offers the side to act can take now (see [`offering_step`]); only those it can
/// pay for.
pub fn offers(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
) -> Result<Vec<Offer>, RuleError> {
    let Some(step) = offering_step(module, state) else {
        return Ok(Vec::new());
    };
    let mut all = rules.offers(View { module, state }, step)?;
    all.retain(|o| o.refused.is_none() && o.affordable(module, state));
    Ok(all)
}

/// The offer `action` takes, if the rules offer it now (open) and the side can pay:
/// found in the rules' last listing where that was of this position
/// ([`Rules::offers_kept`]), else asked for. The same offer either way: the offers that
/// match what a `Take` names are the same whether the rules list them all or only those
/// (`offers_for`'s contract), and the first open one is taken. Only a `Take` found so
/// saves the asking: a refusal asks, so its reasons are the rules' own.
fn wanted_offer(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<Option<Offer>, RuleError> {
    let open = |o: &Offer| o.taken_by(action) && o.refused.is_none() && o.affordable(module, state);
    if let Some(step) = offering_step(module, state)
        && let Some(kept) = rules.offers_kept(View { module, state }, step)
        && let Some(o) = kept.iter().find(|o| open(o))
    {
        return Ok(Some(o.clone()));
    }
    Ok(asked(module, rules, state, action)?
        .into_iter()
        .find(|o| open(o)))
}

/// The rules' reason for closing the offer `action` takes, if they give one (only on a
/// refusal: the rules are asked again).
fn closed(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<Option<String>, RuleError> {
    Ok(asked(module, rules, state, action)?
        .into_iter()
        .find(|o| o.taken_by(action))
        .and_then(|o| o.refused))
}

/// What the rules list when asked for the offer `action` takes (open and closed).
fn asked(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<Vec<Offer>, RuleError> {
    let Action::Take {
        offer: id,
        unit,
        at,
        ..
    } = action
    else {
        return Ok(Vec::new());
    };
    let Some(step) = offering_step(module, state) else {
        return Ok(Vec::new());
    };
    let wanted = Wanted {
        id,
        unit: *unit,
        at: *at,
    };
    rules.offers_for(View { module, state }, step, &wanted)
}

/// Takes an offer: checks it is among the offers now, pays its cost and reports
/// `offer_taken`, applying the rules' commands. The caller works on a copy.
pub(crate) fn take(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let Some(mut offer) = wanted_offer(module, rules, state, action)? else {
        if let Some(why) = closed(module, rules, state, action)? {
            // Hidden information fails closed: the rules' reason is read from the whole
            // state and may speak of what the seat does not see.
            let why = if super::sight::everything_shown(module, rules) {
                why
            } else {
                super::why::HIDDEN_REASON.to_string()
            };
            return Err(illegal(format!("the rules close that decision now: {why}")));
        }
        return Err(illegal(format!(
            "that is not among the decisions the rules offer now{}",
            same_kind(module, rules, state, action)?
        )));
    };
    let entered = enter(module, rules, state, &mut offer, action)?;
    if state.waiting.is_empty() {
        let mut log = entered;
        log.extend(carry_out(module, rules, state, &offer)?);
        return Ok(log);
    }
    let Some(seat) = offer
        .seat
        .filter(|&s| super::seats::waiting(state).any(|w| w == s))
    else {
        let waiting: Vec<SeatId> = super::seats::waiting(state).collect();
        return Err(illegal(format!(
            "the game waits for {}",
            super::seats::names(module, &waiting)
        )));
    };
    let Some(sealed) = state.sealed.as_mut() else {
        state.waiting.retain(|&s| s != seat);
        let mut log = entered;
        log.extend(carry_out(module, rules, state, &offer)?);
        return Ok(log);
    };
    // A sealed choice: kept unseen until every seat waited for has chosen, then all
    // are carried out in seat order.
    sealed.push(offer);
    let mut log = vec![format!("{} has chosen", module.seat(seat).name)];
    if super::seats::waiting(state).next().is_some() {
        return Ok(log);
    }
    let mut chosen = state.sealed.take().unwrap_or_default();
    chosen.sort_by_key(|o| o.seat);
    state.waiting.clear();
    for offer in &chosen {
        let entered = offer
            .entry
            .as_ref()
            .map(|e| format!(" ({})", entry::describe(module, state, &offer.form, e)))
            .unwrap_or_default();
        log.push(format!(
            "{} chose: {}{entered}",
            offer.seat.map_or("", |s| module.seat(s).name.as_str()),
            offer.label
        ));
        log.extend(carry_out(module, rules, state, offer)?);
    }
    Ok(log)
}

/// Checks the entry a `Take` carries as taking it would (its offer listed now, the
/// form's check, then the rules' `accepts_entry`), on a copy of the game, applying
/// nothing: a host tells a refused entry (the referee is asked again) from a broken
/// game before it draws any dice. Only for an action that carries an entry.
pub fn check_entry(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<(), ActionError> {
    let Some(mut offer) = wanted_offer(module, rules, state, action)? else {
        return Err(illegal(
            "that is not among the decisions the rules offer now",
        ));
    };
    let mut copy = state.clone();
    enter(module, rules, &mut copy, &mut offer, action).map(|_| ())
}

/// For a refused `Take`: the offers of its kind (same id, same seat) open now, by their
/// labels, so the refusal says what may be taken instead and, in the rules' words, why
/// (a reinforcement's places, each label citing its rule). Empty when there are none.
/// Only the refusal pays for it.
fn same_kind(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<String, RuleError> {
    let Action::Take {
        offer: id, seat, ..
    } = action
    else {
        return Ok(String::new());
    };
    let labels: Vec<String> = offers(module, rules, state)?
        .into_iter()
        .filter(|o| o.id == *id && o.seat == *seat)
        .map(|o| o.label)
        .collect();
    if labels.is_empty() {
        return Ok(String::new());
    }
    Ok(format!(
        " ('{id}' is offered only as: {})",
        labels.join("; ")
    ))
}

/// For an offer with a form, the values `action` carries, or else those the rules'
/// computer referee enters (drawing on the game's dice), checked against the form and
/// put in the offer; then the rules may refuse them (`accepts_entry`). Returns the log
/// line that says what was entered (a sealed choice's is said when it is revealed).
/// Errors name the offer; the caller's copy of the game is dropped with them.
fn enter(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    offer: &mut Offer,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let Action::Take { entry: given, .. } = action else {
        return Ok(Vec::new());
    };
    let refused = |why: String| illegal(format!("'{}': {why}", offer.label));
    if offer.form.is_empty() {
        return match given {
            Some(_) => Err(refused("it takes no entry (its offer has no form)".into())),
            None => Ok(Vec::new()),
        };
    }
    let (value, by) = match given {
        Some(e) => (Entry::clone(e), "entered"),
        None => {
            if offer.fight {
                let at = offer.at.ok_or_else(|| {
                    refused("it asks for a battle to be fought (`fight`) but names no box".into())
                })?;
                let fought = fight::fight(module, rules, state, at)
                    .map_err(|e| refused(format!("the battle fought for the referee: {e}")))?;
                offer.fought = Some(fought);
            }
            let mut dice = std::mem::replace(&mut state.dice, super::dice::Dice::fixed([]));
            let computed = rules.referee_entry(View { module, state }, &mut dice, offer);
            state.dice = dice;
            offer.fought = None;
            match computed? {
                Some(e) => (e, "entered by the computer referee"),
                None => {
                    return Err(refused(
                        "it needs an entry, and no computer referee (`referee_entry`) \
                         enters one: a person must fill its form"
                            .into(),
                    ));
                }
            }
        }
    };
    entry::check(module, state, &offer.form, &value).map_err(&refused)?;
    let said = entry::describe(module, state, &offer.form, &value);
    offer.entry = Some(value);
    if let Some(why) = rules.refuses_entry(View { module, state }, offer)? {
        offer.entry = None;
        return Err(refused(format!("the rules refuse the entry: {why}")));
    }
    if state.sealed.is_some() {
        return Ok(Vec::new());
    }
    Ok(vec![format!("{} {by}: {said}", offer.label)])
}

/// Pays for an offer and reports `offer_taken`, applying the rules' commands.
fn carry_out(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    offer: &Offer,
) -> Result<Vec<String>, ActionError> {
    if let Some(side) = offer.payer(module, state) {
        for &(r, n) in &offer.cost {
            let left = state.resource(side, r);
            state.set_resource(side, r, left - n);
        }
    }
    notify(module, rules, state, Event::OfferTaken { offer })
}
