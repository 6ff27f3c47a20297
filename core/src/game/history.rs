//! A game in progress with its record: the actions taken and the states between them,
//! so that undo, logs and saves all come from the same place.

use super::action::{Action, ActionError, illegal};
use super::flow::apply;
use super::rules::Rules;
use super::state::GameState;
use crate::module::Module;

#[derive(Clone, Debug)]
pub struct History {
    /// The state before each action, then the current one last.
    states: Vec<GameState>,
    actions: Vec<Action>,
}

impl History {
    pub fn new(start: GameState) -> Self {
        History {
            states: vec![start],
            actions: Vec::new(),
        }
    }

    pub fn state(&self) -> &GameState {
        self.states.last().expect("a history always has a state")
    }

    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The state action `i` was taken in (the current one for `i` = the number of
    /// actions): its words name pieces as they were then, not as they are now.
    pub fn state_before(&self, i: usize) -> Option<&GameState> {
        self.states.get(i)
    }

    /// Applies an action and records it; on error nothing changes.
    pub fn apply(
        &mut self,
        module: &Module,
        rules: &mut dyn Rules,
        action: Action,
    ) -> Result<Vec<String>, ActionError> {
        let (next, log) = apply(module, rules, self.state(), &action)?;
        self.states.push(next);
        self.actions.push(action);
        Ok(log)
    }

    /// Gives the game new dice from here on (a stretch of a game played by file, whose
    /// dice both players drew). The past is fixed: undo stops here.
    pub fn reseed(&mut self, dice: super::dice::Dice) {
        let mut now = self.state().clone();
        now.dice = dice;
        *self
            .states
            .last_mut()
            .expect("a history always has a state") = now;
    }

    /// Whether the last action may be taken back: only decisions of the `move` step
    /// still under way that rolled no die (once dice are rolled or battles fought, the
    /// past is fixed).
    pub fn can_undo(&self) -> bool {
        let n = self.states.len();
        n >= 2 && {
            let (before, now) = (&self.states[n - 2], &self.states[n - 1]);
            before.moving.is_some()
                && now.moving.is_some()
                && before.turn == now.turn
                && before.player == now.player
                && before.step == now.step
                && before.repeat == now.repeat
                && before.dice == now.dice
        }
    }

    /// Takes back the last action (see [`History::can_undo`]).
    pub fn undo(&mut self) -> Result<Action, ActionError> {
        if !self.can_undo() {
            return Err(illegal(
                "only moves within the move step under way can be undone",
            ));
        }
        self.states.pop();
        self.actions.pop().ok_or_else(|| illegal("nothing to undo"))
    }
}
