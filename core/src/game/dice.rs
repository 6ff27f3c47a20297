//! Dice: a seeded generator that gives the same rolls on every platform and version, or
//! a fixed sequence for tests and worked examples.
//!
//! The generator is PCG-XSH-RR 64/32 (O'Neill), written out here rather than taken from
//! a crate so that a dependency update can never change a saved game's dice.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

const MULTIPLIER: u64 = 6_364_136_223_846_793_005;

/// A PCG32 generator; its whole state is two integers, so it saves and clones cheaply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pcg32 {
    state: u64,
    inc: u64,
}

impl Pcg32 {
    pub fn new(seed: u64, stream: u64) -> Self {
        let mut rng = Self {
            state: 0,
            inc: (stream << 1) | 1,
        };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

    /// Uniform in `1..=n` (n >= 1), without modulo bias.
    pub fn between_one_and(&mut self, n: u32) -> u32 {
        let n = n.max(1);
        let zone = u32::MAX - (u32::MAX % n);
        loop {
            let x = self.next_u32();
            if x < zone {
                return x % n + 1;
            }
        }
    }
}

/// Where die rolls come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dice {
    Seeded(Pcg32),
    /// Rolls given in advance (tests, replays of a worked example); running out is an
    /// error, never a silent fallback.
    Fixed(VecDeque<u32>),
}

/// The fixed rolls ran out, or one did not fit the die.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiceError {
    #[error("the fixed dice ran out")]
    Exhausted,
    #[error("a fixed roll of {roll} does not fit a {sides}-sided die")]
    OutOfRange { roll: u32, sides: u32 },
}

impl Dice {
    pub fn seeded(seed: u64) -> Self {
        Dice::Seeded(Pcg32::new(seed, 0x6d75_7374_6572))
    }

    pub fn fixed(rolls: impl IntoIterator<Item = u32>) -> Self {
        Dice::Fixed(rolls.into_iter().collect())
    }

    /// Rolls one die with `sides` faces: 1..=sides.
    pub fn roll(&mut self, sides: u32) -> Result<u32, DiceError> {
        match self {
            Dice::Seeded(rng) => Ok(rng.between_one_and(sides)),
            Dice::Fixed(rolls) => {
                let roll = rolls.pop_front().ok_or(DiceError::Exhausted)?;
                if roll == 0 || roll > sides {
                    return Err(DiceError::OutOfRange { roll, sides });
                }
                Ok(roll)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcg32_matches_the_reference_sequence() {
        // First outputs of the reference pcg32_random_r for seed 42, stream 54.
        let mut rng = Pcg32::new(42, 54);
        let got: Vec<u32> = (0..6).map(|_| rng.next_u32()).collect();
        assert_eq!(
            got,
            [
                0xa15c_02b7,
                0x7b47_f409,
                0xba1d_3330,
                0x83d2_f293,
                0xbfa4_784b,
                0xcbed_606e
            ]
        );
    }

    #[test]
    fn dice_are_uniform_enough_and_in_range() {
        let mut d = Dice::seeded(7);
        let mut counts = [0u32; 7];
        for _ in 0..60_000 {
            counts[d.roll(6).unwrap() as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        for &c in &counts[1..] {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn fixed_dice_run_out_loudly() {
        let mut d = Dice::fixed([3, 6]);
        assert_eq!(d.roll(6), Ok(3));
        assert_eq!(d.roll(6), Ok(6));
        assert_eq!(d.roll(6), Err(DiceError::Exhausted));
        assert_eq!(
            Dice::fixed([7]).roll(6),
            Err(DiceError::OutOfRange { roll: 7, sides: 6 })
        );
    }
}
