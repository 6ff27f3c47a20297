//! The computer thinks off the UI thread, so the window never freezes while a `strong`
//! player searches: a worker thread with rules of its own (scripted rules cannot cross
//! threads) receives the player and the position, and sends back the player with its
//! choice. The UI thread applies the choice through the session, where the engine
//! judges it as it judges a human's.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::Instant;

use muster_ai::Player;
use muster_core::Module;
use muster_core::game::{Action, GameState};
use muster_scripting::{Limits, ScriptRules};

/// A decision asked of the worker.
struct Job {
    ticket: u64,
    side: usize,
    player: Box<dyn Player>,
    state: GameState,
}

/// A decision the worker made: the player goes back to its seat whatever happened.
pub struct Done {
    pub ticket: u64,
    pub side: usize,
    pub player: Box<dyn Player>,
    /// The action chosen, or why the player could not choose.
    pub choice: Result<Action, String>,
}

/// The worker thread of one module, and the decision under way.
pub struct Thinker {
    module: Arc<Module>,
    jobs: Sender<Job>,
    done: Receiver<Done>,
    next: u64,
    /// The decision under way: its ticket, the side deciding and when it was asked.
    pending: Option<(u64, usize, Instant)>,
}

impl Thinker {
    /// Starts a worker for `module`; its rules load on the worker.
    pub fn new(module: Arc<Module>) -> Self {
        let (jobs, inbox) = channel::<Job>();
        let (outbox, done) = channel::<Done>();
        let worker_module = module.clone();
        std::thread::Builder::new()
            .name("muster-computer".into())
            .spawn(move || work(&worker_module, &inbox, &outbox))
            .map_err(|e| tracing::error!("cannot start the computer's thread: {e}"))
            .ok();
        Thinker {
            module,
            jobs,
            done,
            next: 0,
            pending: None,
        }
    }

    /// Whether this worker serves `module` (a reload makes a new module).
    pub fn serves(&self, module: &Arc<Module>) -> bool {
        Arc::ptr_eq(&self.module, module)
    }

    /// The side deciding now and since when, if a decision is under way.
    pub fn thinking(&self) -> Option<(usize, Instant)> {
        self.pending.map(|(_, side, at)| (side, at))
    }

    /// Asks `player` (seated for `side`) to choose in `state`. On a dead worker the
    /// player is handed back.
    pub fn ask(
        &mut self,
        side: usize,
        player: Box<dyn Player>,
        state: GameState,
    ) -> Result<(), Box<dyn Player>> {
        self.next += 1;
        let job = Job {
            ticket: self.next,
            side,
            player,
            state,
        };
        match self.jobs.send(job) {
            Ok(()) => {
                self.pending = Some((self.next, side, Instant::now()));
                Ok(())
            }
            Err(e) => Err(e.0.player),
        }
    }

    /// The decision, once made. A decision whose ticket is no longer awaited is
    /// returned too, so its player can go back to its seat.
    pub fn poll(&mut self) -> Option<Done> {
        match self.done.try_recv() {
            Ok(done) => {
                if self.pending.is_some_and(|p| p.0 == done.ticket) {
                    self.pending = None;
                }
                Some(done)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => {
                self.pending = None;
                None
            }
        }
    }

    /// Waits up to `timeout` for the decision (tests and the headless driver).
    pub fn wait(&mut self, timeout: std::time::Duration) -> Option<Done> {
        let done = self.done.recv_timeout(timeout).ok()?;
        if self.pending.is_some_and(|p| p.0 == done.ticket) {
            self.pending = None;
        }
        Some(done)
    }
}

/// The worker: loads the rules once (compiled to machine code: they answer a whole
/// game's decisions), then answers jobs until the thinker is dropped.
fn work(module: &Module, inbox: &Receiver<Job>, outbox: &Sender<Done>) {
    let mut rules =
        ScriptRules::load(module, Limits::default().native()).map_err(|e| e.to_string());
    while let Ok(mut job) = inbox.recv() {
        let choice = match rules.as_mut() {
            Ok(rules) => muster_ai::choose(job.player.as_mut(), module, rules, &job.state)
                .map_err(|e| e.to_string()),
            Err(e) => Err(format!("the rules do not load: {e}")),
        };
        if let Ok(r) = rules.as_mut() {
            // What the rules printed while the computer looked ahead is not the game's.
            r.take_output();
            r.take_logged();
        }
        let done = Done {
            ticket: job.ticket,
            side: job.side,
            player: job.player,
            choice,
        };
        if outbox.send(done).is_err() {
            return;
        }
    }
}
