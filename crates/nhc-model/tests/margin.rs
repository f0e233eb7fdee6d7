//! The Bus's margin (MODEL §5) under both readings of the paper's "first and second largest
//! values of c_k^b": softmax probabilities and raw logits.

use nhc_model::policy::{margin, raw_margin};
use nhc_model::{BusDecision, Margin};

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn probabilities_compare_exp_of_the_logit_gap() {
    // p1/p2 = e^(z1 − z2); m_max = 0.1.
    assert!(close(margin(&[0.05, 0.0], 0), (0.05f32.exp() - 1.0) / 0.1));
    assert_eq!(margin(&[3.0, 0.0, -1.0], 0), 1.0);
    assert_eq!(margin(&[1.0, 1.0], 0), 0.0);
    assert_eq!(margin(&[2.0], 0), 1.0);
}

#[test]
fn raw_logits_compare_their_ratio() {
    // z1/z2 − 1 = 0.05 → half the margin.
    assert!(close(raw_margin(&[2.1, 2.0], 0), 0.5));
    assert_eq!(raw_margin(&[4.0, 2.0], 0), 1.0);
    // Only the winner positive: full; neither: none.
    assert_eq!(raw_margin(&[0.5, -3.0], 0), 1.0);
    assert_eq!(raw_margin(&[-1.0, -2.0], 0), 0.0);
    assert_eq!(raw_margin(&[0.0, 0.0], 0), 0.0);
    assert_eq!(raw_margin(&[f32::NAN, 1.0], 0), 0.0);
    // The same choice either way; only the margin differs.
    let (p, r) = (
        BusDecision::from_logits(&[2.1, 2.0], Margin::Probabilities),
        BusDecision::from_logits(&[2.1, 2.0], Margin::Raw),
    );
    assert_eq!((p.op, r.op), (0, 0));
    assert!(close(r.margin, 0.5) && p.margin == 1.0);
}
