//! Play by file in the app (issue 17 item 1): the same player's folder, turn files and
//! dice as `muster pbem` ([`muster_core::pbem::folder`]), with the game on the map. The
//! player opens their folder; on their turn they play their stretch here (the
//! opponent's forced decisions are taken for them, as the CLI does) and send it as the
//! next file; otherwise the game is shown as the files left it, read-only.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui::Ui;
use muster_core::Module;
use muster_core::ids::SideId;
use muster_core::pbem::folder::{Folder, TurnKeys};
use muster_core::pbem::{Game, Stretch};
use muster_scripting::{Limits, ScriptRules};

use super::PlayCommand;
use super::session::{PlayerKind, Session};
use crate::command::UiCommand;

/// A game played by file, opened from the player's folder.
pub struct ByFile {
    module: Arc<Module>,
    folder: Folder,
    game: Game,
    me: SideId,
    /// The player's stretch and the keys of the file it goes in, on their turn.
    turn: Option<(Stretch, TurnKeys)>,
    /// The file written this turn.
    sent: Option<PathBuf>,
    /// The last file's moves, in words.
    last: Vec<String>,
    /// The game (number of actions, last action) in which the opponent's forced
    /// decision was last looked for (the rules are not asked again every frame; an undo
    /// gives another key).
    looked: Option<(usize, Option<muster_core::game::Action>)>,
    /// The standing last worked out, for the game at (number of actions, last action):
    /// asked every frame, it asks the rules only when the game moved.
    known: Option<((usize, Option<muster_core::game::Action>), Standing)>,
}

/// Where the game by file stands for this player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Standing {
    /// File 1 is theirs: it accepts the game (no moves).
    Answer,
    /// Their stretch goes on: they decide.
    Playing,
    /// Their stretch is over: the file can be sent.
    Done,
    /// Their file is written.
    Sent(PathBuf),
    /// The opponent writes the next file.
    Waiting {
        side: SideId,
        index: usize,
    },
    Over,
}

impl ByFile {
    /// Starts a new game in `dir` (which holds none), the player on `side`, and opens it.
    pub fn create(
        module: &Arc<Module>,
        dir: &Path,
        side: &str,
        scenario: &str,
        options: Vec<String>,
        end: Option<String>,
    ) -> Result<(ByFile, Option<Session>), String> {
        let me = module
            .find_side(side)
            .ok_or_else(|| format!("the module has no side '{side}'"))?;
        if module.sides.len() != 2 {
            return Err(format!(
                "play by file is for two players; module '{}' has {} sides",
                module.id,
                module.sides.len()
            ));
        }
        let found = module
            .scenario(scenario)
            .ok_or_else(|| format!("no scenario '{scenario}' in the module"))?;
        let option_ids = options
            .iter()
            .map(|o| {
                module
                    .find_option(o)
                    .ok_or_else(|| format!("no optional rule '{o}' in the module"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(end) = &end {
            // Checked now, not when the game starts two files later.
            let mut probe = muster_core::game::GameState::new(
                module,
                found,
                option_ids,
                muster_core::game::Dice::seeded(0),
            )
            .map_err(|e| e.to_string())?;
            muster_core::game::set_end(module, &mut probe, end)
                .map_err(|e| format!("ending date: {e}"))?;
        }
        let other = module.side_ids().find(|&s| s != me).unwrap_or(me);
        let folder = Folder::new(dir);
        folder
            .create(
                module,
                muster_core::game::save::SavedScenario {
                    id: scenario.to_string(),
                    xml: None,
                },
                options,
                end,
                [module.side(me).id.clone(), module.side(other).id.clone()],
            )
            .map_err(|e| e.to_string())?;
        Self::open(module, dir, Some(side))
    }

    /// Reads the game in `dir`, every file checked. `side` is the player's; by default
    /// the side whose secrets the folder keeps, else the next file's author.
    pub fn open(
        module: &Arc<Module>,
        dir: &Path,
        side: Option<&str>,
    ) -> Result<(ByFile, Option<Session>), String> {
        let folder = Folder::new(dir);
        let mut rules = ScriptRules::load(module, Limits::default()).map_err(|e| e.to_string())?;
        let read = folder.read(module, &mut rules).map_err(|e| e.to_string())?;
        let game = read.game;
        let me = match side {
            Some(id) => module
                .find_side(id)
                .filter(|s| game.players().contains(s))
                .ok_or_else(|| format!("side '{id}' plays no part in this game"))?,
            None => match folder.own_sides(&game).as_slice() {
                [one] => module.find_side(one).unwrap_or(game.next_author()),
                _ => game.next_author(),
            },
        };
        // The other side's stretch as the game logged it: each action named where it
        // was taken, with every roll.
        let last = game
            .report(module, &mut rules, read.before_last)
            .map_err(|e| e.to_string())?;
        let mut by_file = ByFile {
            module: module.clone(),
            folder,
            game,
            me,
            turn: None,
            sent: None,
            last,
            looked: None,
            known: None,
        };
        let session = by_file.session(module, rules)?;
        Ok((by_file, session))
    }

    /// The game as a session: the player's stretch begun on their turn (their secret
    /// for the next file kept first, as the CLI does), else as the files left it.
    fn session(
        &mut self,
        module: &Arc<Module>,
        mut rules: ScriptRules,
    ) -> Result<Option<Session>, String> {
        let setup = self.game.setup.clone();
        let mine = !self.game.over() && self.game.next_author() == self.me;
        let mut players = vec![PlayerKind::ByFile; module.sides.len()];
        let history = if mine {
            let keys = self
                .folder
                .keys(&self.game, &module.side(self.me).id)
                .map_err(|e| e.to_string())?;
            let stretch = self
                .game
                .begin(module, &mut rules, keys.reveal.as_ref())
                .map_err(|e| e.to_string())?;
            let begun = stretch
                .as_ref()
                .map(|s| (s.history.clone(), (s.seed, s.reseeds.clone()), s.start));
            self.turn = stretch.map(|s| (s, keys));
            players[self.me.index()] = PlayerKind::Human;
            begun
        } else {
            self.game
                .history()
                .map(|h| (h.clone(), self.game.dice(), h.actions().len()))
        };
        let Some((history, dice, floor)) = history else {
            // Before file 2 the game has not started: nothing to show.
            return Ok(None);
        };
        let mut log = vec![format!(
            "{} - game by file {} ({} files), folder {}",
            module.name,
            self.game.id,
            self.game.len(),
            self.folder.dir.display()
        )];
        if !self.last.is_empty() {
            log.push("the last file's moves:".into());
            log.extend(self.last.iter().map(|l| format!("  {l}")));
        }
        Ok(Some(Session::by_file(
            module.clone(),
            rules,
            history,
            players,
            setup.scenario,
            setup.options,
            setup.end,
            dice,
            floor,
            log,
        )))
    }

    pub fn me(&self) -> SideId {
        self.me
    }

    pub fn folder(&self) -> &Path {
        &self.folder.dir
    }

    /// The number of files of the game read or written.
    pub fn files(&self) -> usize {
        self.game.len()
    }

    /// The last file's moves, in words.
    pub fn last(&self) -> &[String] {
        &self.last
    }

    /// Where the game stands for the player, with the game in `session` (worked out
    /// again only when the game moved).
    pub fn standing(&mut self, session: Option<&mut Session>) -> Standing {
        let key = session.as_ref().map(|s| {
            let actions = s.history().actions();
            (actions.len(), actions.last().cloned())
        });
        if self.sent.is_none()
            && let (Some(key), Some((known, standing))) = (&key, &self.known)
            && key == known
        {
            return standing.clone();
        }
        let standing = self.work_out(session);
        self.known = key.map(|k| (k, standing.clone()));
        standing
    }

    fn work_out(&self, session: Option<&mut Session>) -> Standing {
        if let Some(path) = &self.sent {
            return Standing::Sent(path.clone());
        }
        if self.game.over() {
            return Standing::Over;
        }
        let author = self.game.next_author();
        if author != self.me {
            return Standing::Waiting {
                side: author,
                index: self.game.len(),
            };
        }
        let Some(session) = session else {
            return Standing::Answer;
        };
        if self.turn.is_none() {
            return Standing::Answer;
        }
        let module = session.module().clone();
        let state = session.state().clone();
        match Game::stretch_goes_on(&module, session.rules_mut(), &state, self.me) {
            Ok(Some(true)) => Standing::Playing,
            // The opponent's forced decision is taken before the file is sent.
            Ok(Some(false)) => Standing::Playing,
            _ => Standing::Done,
        }
    }

    /// The opponent's only legal action, to take within the player's stretch (once
    /// for each position).
    pub fn forced(&mut self, session: &mut Session) -> Option<muster_core::game::Action> {
        let (stretch, _) = self.turn.as_ref()?;
        if self.sent.is_some() {
            return None;
        }
        let actions = session.history().actions();
        let key = (actions.len(), actions.last().cloned());
        if self.looked.as_ref() == Some(&key) || session.decider() == stretch.author() {
            return None;
        }
        self.looked = Some(key);
        let module = session.module().clone();
        let state = session.state().clone();
        match Game::stretch_goes_on(&module, session.rules_mut(), &state, self.me) {
            Ok(Some(false)) => session.legal().ok()?.first().cloned(),
            _ => None,
        }
    }

    /// Writes the player's next file (file 1, or their stretch as played in `session`),
    /// then reads the folder again as the opponent will read it. Nothing is written
    /// while the stretch goes on.
    pub fn send(
        &mut self,
        module: &Arc<Module>,
        session: Option<&mut Session>,
    ) -> Result<PathBuf, String> {
        if self.sent.is_some() || self.game.next_author() != self.me || self.game.over() {
            return Err("it is not your turn to send a file".into());
        }
        let side_id = module.side(self.me).id.clone();
        let mut session = session;
        // File 1 has no stretch: its rules only read the folder back.
        let mut scratch = None;
        let bytes = match (self.turn.as_mut(), session.as_deref_mut()) {
            (Some((stretch, keys)), Some(session)) => {
                stretch.history = session.history().clone();
                self.game
                    .finish(
                        module,
                        session.rules_mut(),
                        keys.reveal.as_ref(),
                        &keys.next,
                        &keys.nonce,
                        Some(stretch),
                    )
                    .map_err(|e| e.to_string())?
            }
            (None, _) if self.game.len() < 2 => {
                let keys = self
                    .folder
                    .keys(&self.game, &side_id)
                    .map_err(|e| e.to_string())?;
                let rules = scratch.insert(
                    ScriptRules::load(module, Limits::default()).map_err(|e| e.to_string())?,
                );
                self.game
                    .finish(module, rules, None, &keys.next, &keys.nonce, None)
                    .map_err(|e| e.to_string())?
            }
            _ => return Err("no turn under way to send".into()),
        };
        // Written before anything here changes: if it cannot be, the turn goes on.
        let path = self
            .folder
            .write_turn(&self.game, &side_id, &bytes)
            .map_err(|e| e.to_string())?;
        self.turn = None;
        self.sent = Some(path.clone());
        // What was sent is not taken back, and nobody here decides until the answer.
        let rules = match (scratch.as_mut(), session) {
            (Some(rules), _) => rules,
            (None, Some(session)) => {
                session.hand_over();
                session.rules_mut()
            }
            (None, None) => return Ok(path),
        };
        // Read back as the opponent will: the file must be accepted.
        let read = self
            .folder
            .read(module, rules)
            .map_err(|e| format!("wrote {} but it does not read back: {e}", path.display()))?;
        self.game = read.game;
        Ok(path)
    }
}

/// The new-game-by-file and open-a-folder dialog.
pub struct ByFileDialog {
    pub folder: String,
    /// The player's side (index), for a new game; for an opened folder, `None` is "the
    /// folder's player".
    pub side: Option<usize>,
    pub scenario: usize,
    /// The optional rules (id, "rule title", on) and ending date of a new game.
    pub options: Vec<(String, String, bool)>,
    pub end: String,
    pub error: Option<String>,
    sides: Vec<(String, String)>,
    scenarios: Vec<(String, String)>,
}

impl ByFileDialog {
    pub fn new(module: &Module) -> Self {
        ByFileDialog {
            folder: "game-by-file".into(),
            side: None,
            scenario: 0,
            options: module
                .options
                .iter()
                .map(|o| {
                    (
                        o.id.clone(),
                        format!("{} {}", o.rule, o.title),
                        o.default_on,
                    )
                })
                .collect(),
            end: String::new(),
            error: None,
            sides: module
                .sides
                .iter()
                .map(|s| (s.id.clone(), s.name.clone()))
                .collect(),
            scenarios: module
                .scenarios
                .iter()
                .map(|s| (s.id.clone(), s.name.clone()))
                .collect(),
        }
    }

    pub fn show(&mut self, ctx: &egui::Context, out: &mut Vec<UiCommand>) {
        egui::Modal::new(egui::Id::unique("by-file")).show(ctx, |ui| {
            ui.heading("Play by file");
            ui.label(
                "Each player keeps a folder. Your turn goes in a small file you send to the \
                 other player (by e-mail or any way you like); put the files you receive in \
                 your folder. The dice come from secrets both players commit to: neither of \
                 you can choose or re-roll them.",
            );
            ui.add_space(8.0);
            ui.horizontal(|ui| {
                let l = ui.label("Your folder");
                ui.add(egui::TextEdit::singleline(&mut self.folder).desired_width(280.0))
                    .labelled_by(l.id);
            });
            let side_name = |s: Option<usize>| {
                s.and_then(|i| self.sides.get(i))
                    .map_or("the folder's player".to_string(), |s| s.1.clone())
            };
            let mut side = self.side;
            ui.horizontal(|ui| {
                let l = ui.label("You play");
                let combo = egui::ComboBox::from_id_salt("by-file-side")
                    .selected_text(side_name(side))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut side, None, side_name(None));
                        for i in 0..self.sides.len() {
                            ui.selectable_value(&mut side, Some(i), side_name(Some(i)));
                        }
                    })
                    .response
                    .labelled_by(l.id);
                super::dialog::keep_popup_on_top(ui.ctx(), combo.id);
            });
            self.side = side;
            ui.separator();
            ui.label("A new game: you send the first file.");
            ui.horizontal(|ui| {
                let l = ui.label("Scenario");
                let name = |i: usize| self.scenarios.get(i).map_or("?", |s| s.1.as_str());
                let mut scenario = self.scenario;
                let combo = egui::ComboBox::from_id_salt("by-file-scenario")
                    .selected_text(name(scenario))
                    .show_ui(ui, |ui| {
                        for i in 0..self.scenarios.len() {
                            ui.selectable_value(&mut scenario, i, name(i));
                        }
                    })
                    .response
                    .labelled_by(l.id);
                super::dialog::keep_popup_on_top(ui.ctx(), combo.id);
                self.scenario = scenario;
            });
            if !self.options.is_empty() {
                egui::CollapsingHeader::new("Optional rules")
                    .id_salt("by-file-options")
                    .show(ui, |ui| {
                        egui::ScrollArea::vertical()
                            .id_salt("by-file-options-list")
                            .max_height(160.0)
                            .show(ui, |ui| {
                                for (_, label, on) in &mut self.options {
                                    ui.checkbox(on, label.as_str());
                                }
                            });
                    });
            }
            ui.horizontal(|ui| {
                let l = ui.label("Ending date");
                ui.add(egui::TextEdit::singleline(&mut self.end).hint_text("MM/YYYY"))
                    .labelled_by(l.id);
            });
            let dir = PathBuf::from(self.folder.trim());
            ui.horizontal(|ui| {
                let new_ok = self.side.is_some() && !self.folder.trim().is_empty();
                if ui
                    .add_enabled(new_ok, egui::Button::new("Start a new game by file"))
                    .on_disabled_hover_text("choose your side and a folder")
                    .clicked()
                    && let (Some(side), Some(scenario)) = (
                        self.side.and_then(|i| self.sides.get(i)),
                        self.scenarios.get(self.scenario),
                    )
                {
                    let end = self.end.trim();
                    out.push(UiCommand::Play(PlayCommand::ByFileNew {
                        dir: dir.clone(),
                        side: side.0.clone(),
                        scenario: scenario.0.clone(),
                        options: self
                            .options
                            .iter()
                            .filter(|o| o.2)
                            .map(|o| o.0.clone())
                            .collect(),
                        end: (!end.is_empty()).then(|| end.to_string()),
                    }));
                }
                if ui
                    .add_enabled(
                        !self.folder.trim().is_empty(),
                        egui::Button::new("Open the game in the folder"),
                    )
                    .clicked()
                {
                    out.push(UiCommand::Play(PlayCommand::ByFileOpen {
                        dir: dir.clone(),
                        side: self
                            .side
                            .and_then(|i| self.sides.get(i))
                            .map(|s| s.0.clone()),
                    }));
                }
                if ui.button("Cancel").clicked() {
                    out.push(UiCommand::Play(PlayCommand::CancelByFile));
                }
            });
            if let Some(e) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, e);
            }
        });
    }
}

/// The strip above the map that says where the game by file stands and sends the file.
pub fn strip(ui: &mut Ui, by_file: &ByFile, standing: &Standing, out: &mut Vec<UiCommand>) {
    let module = &by_file.module;
    ui.horizontal_wrapped(|ui| {
        ui.strong(format!(
            "By file ({}), you play {}:",
            by_file.folder().display(),
            module.side(by_file.me()).name
        ));
        match standing {
            Standing::Answer => {
                ui.label("the other player started this game: accept it with file 1.");
                if ui.button("Accept and write file 1").clicked() {
                    out.push(UiCommand::Play(PlayCommand::ByFileSend));
                }
            }
            Standing::Playing => {
                ui.label(format!(
                    "your turn (file {}): play it, then send it.",
                    by_file.files()
                ));
            }
            Standing::Done => {
                ui.label(format!(
                    "your turn is played: send file {}.",
                    by_file.files()
                ));
                if ui.button("Send turn file").clicked() {
                    out.push(UiCommand::Play(PlayCommand::ByFileSend));
                }
            }
            Standing::Sent(path) => {
                ui.label(format!(
                    "wrote {}: send it to the other player.",
                    path.display()
                ));
                if ui.button("Look for their answer").clicked() {
                    out.push(UiCommand::Play(PlayCommand::ByFileRefresh));
                }
            }
            Standing::Waiting { side, index } => {
                ui.label(format!(
                    "waiting for the {} player's file {index}: put it in your folder.",
                    module.side(*side).name
                ));
                if ui.button("Look for their file").clicked() {
                    out.push(UiCommand::Play(PlayCommand::ByFileRefresh));
                }
            }
            Standing::Over => {
                ui.label("the game is over.");
            }
        }
        if ui.button("Close").clicked() {
            out.push(UiCommand::Play(PlayCommand::ByFileClose));
        }
    });
}
