//! The computers' pace under "AI auto": the next computer action waits until the chosen
//! delay has passed since the last one, so a human can follow a computer's turn. The
//! wait is measured with egui's frame time and a scheduled repaint, never a sleep on the
//! UI thread.

/// The longest delay the toolbar offers, in seconds.
pub const MAX_DELAY: f64 = 2.0;

/// How long the next computer action must still wait, in seconds, at time `now` (all in
/// seconds): `None` when it is due. With no delay, or no computer action yet, it is due
/// at once; a clock that went backwards (a new context) counts as due too.
pub fn wait(now: f64, last: Option<f64>, delay: f64) -> Option<f64> {
    let last = last?;
    if delay <= 0.0 || now < last {
        return None;
    }
    let left = last + delay - now;
    (left > 0.0).then_some(left)
}

#[cfg(test)]
mod tests {
    use super::wait;

    #[test]
    fn no_delay_or_no_last_action_is_due_at_once() {
        assert_eq!(wait(5.0, Some(5.0), 0.0), None);
        assert_eq!(wait(5.0, None, 2.0), None);
    }

    #[test]
    fn a_delay_waits_until_it_has_passed_since_the_last_action() {
        assert_eq!(wait(10.5, Some(10.0), 2.0), Some(1.5));
        assert_eq!(wait(11.999, Some(10.0), 2.0).map(|l| l > 0.0), Some(true));
        assert_eq!(wait(12.0, Some(10.0), 2.0), None);
        assert_eq!(wait(30.0, Some(10.0), 2.0), None);
    }

    #[test]
    fn a_clock_that_went_back_does_not_block_the_computers() {
        assert_eq!(wait(1.0, Some(10.0), 2.0), None);
    }
}
