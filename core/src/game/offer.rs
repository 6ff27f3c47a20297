//! Offers: decisions a game's rules add to the engine's procedures ("entrench for a
//! march", "buy an entrenchment for 2 PU", "place General Lee"). The rules list them
//! (the `offers` hook) for the side to act; taking one is an [`Action::Take`] that the
//! engine checks against a fresh list, pays for, records like any other action, and
//! reports to the rules (`offer_taken`), whose commands do what the offer means.

use serde::{Deserialize, Serialize};

use super::action::{Action, ActionError, illegal};
use super::flow::notify;
use super::rules::{Event, RuleError, Rules, View, Wanted};
use super::state::GameState;
use crate::ids::{BoxId, ResourceId, UnitId};
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
}

impl Offer {
    /// The action that takes this offer.
    pub fn action(&self) -> Action {
        Action::Take {
            offer: self.id.clone(),
            unit: self.unit,
            at: self.at,
            label: self.label.clone(),
        }
    }

    /// Whether `action` takes this offer: same id, piece and box (the label is for
    /// people and may change with the rules' wording).
    fn taken_by(&self, action: &Action) -> bool {
        matches!(action, Action::Take { offer, unit, at, .. }
            if *offer == self.id && *unit == self.unit && *at == self.at)
    }

    /// Whether the deciding side can pay for it.
    fn affordable(&self, module: &Module, state: &GameState) -> bool {
        let side = state.active_side(module);
        self.cost.iter().all(|&(r, n)| state.resource(side, r) >= n)
    }
}

/// The id of the step whose offers are open now: none during a battle (its procedure
/// owns every decision) or once the game is over.
fn offering_step<'m>(module: &'m Module, state: &GameState) -> Option<&'m str> {
    let step = state.current_step(module)?;
    if state.combat.as_ref().is_some_and(|c| c.battle.is_some()) {
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
    all.retain(|o| o.affordable(module, state));
    Ok(all)
}

/// The offer `action` takes, if the rules offer it now and the side can pay.
fn wanted_offer(
    module: &Module,
    rules: &mut dyn Rules,
    state: &GameState,
    action: &Action,
) -> Result<Option<Offer>, RuleError> {
    let Action::Take {
        offer: id,
        unit,
        at,
        ..
    } = action
    else {
        return Ok(None);
    };
    let Some(step) = offering_step(module, state) else {
        return Ok(None);
    };
    let wanted = Wanted {
        id,
        unit: *unit,
        at: *at,
    };
    let listed = rules.offers_for(View { module, state }, step, &wanted)?;
    Ok(listed
        .into_iter()
        .find(|o| o.taken_by(action) && o.affordable(module, state)))
}

/// Takes an offer: checks it is among the offers now, pays its cost and reports
/// `offer_taken`, applying the rules' commands. The caller works on a copy.
pub(crate) fn take(
    module: &Module,
    rules: &mut dyn Rules,
    state: &mut GameState,
    action: &Action,
) -> Result<Vec<String>, ActionError> {
    let Some(offer) = wanted_offer(module, rules, state, action)? else {
        return Err(illegal(
            "that is not among the decisions the rules offer now",
        ));
    };
    let side = state.active_side(module);
    for &(r, n) in &offer.cost {
        let left = state.resource(side, r);
        state.set_resource(side, r, left - n);
    }
    notify(module, rules, state, Event::OfferTaken { offer: &offer })
}
