//! Several boxes changed as one document change: moved together, deleted together.

use crate::common;

use muster_editor::Document;

#[test]
fn moving_and_deleting_several_boxes_are_single_undo_steps() {
    let (_tmp, dir) = common::ahd_copy();
    let mut doc = Document::open(&dir).expect("opens");
    let start = doc.map().clone();
    let r = doc.map().find_box("Richmond").unwrap();
    let p = doc.map().find_box("Petersburg").unwrap();
    let at = |i: usize| (start.boxes[i].x, start.boxes[i].y);
    let moves = [
        (r, at(r).0 + 10, at(r).1 + 5),
        (p, at(p).0 + 10, at(p).1 + 5),
    ];
    doc.move_boxes(&moves).unwrap();
    assert_eq!(doc.undo_label(), Some("move 2 boxes"));
    assert_eq!(
        (doc.map().boxes[p].x, doc.map().boxes[p].y),
        (moves[1].1, moves[1].2)
    );
    doc.undo().unwrap();
    assert_eq!(*doc.map(), start);

    doc.delete_boxes(&[p, r, p]).unwrap();
    assert_eq!(doc.map().boxes.len(), start.boxes.len() - 2);
    assert!(
        !doc.map()
            .lines
            .iter()
            .any(|l| l.touches("Richmond") || l.touches("Petersburg"))
    );
    assert!(
        !doc.validation().is_ok(),
        "the scenarios and rules name these boxes"
    );
    doc.undo().unwrap();
    assert_eq!(*doc.map(), start);
    assert!(doc.validation().is_ok());

    // A stale index changes nothing.
    assert!(doc.delete_boxes(&[r, 10_000]).is_err());
    assert_eq!(*doc.map(), start);
}
