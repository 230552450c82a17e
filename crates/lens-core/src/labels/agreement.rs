//! Agreement between two annotators: Cohen's kappa on page grades (plain and linearly weighted
//! for the ordered 0/1/2 scale) and answer agreement. Pure functions over pairs; the store
//! gathers the pairs (`labels::agreement`).
//!
//! Kappa: `(p_o - p_e) / (1 - p_e)`, with `p_o = Σ w_ij p_ij` the observed and
//! `p_e = Σ w_ij p_i. p_.j` the chance agreement. Plain kappa has `w_ij = [i == j]`; the weighted
//! one `w_ij = 1 - |i - j| / (k - 1)`, so a 2 against a 1 counts half, a 2 against a 0 nothing.
//! Undefined (None) when chance agreement is already 1 (both annotators used one grade only).

use crate::eval_answers::{number_recall, token_f1, yes_no};

/// Number of grades on the scale (0, 1, 2).
pub const GRADES: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// Only identical grades agree.
    Plain,
    /// Disagreement grows linearly with the distance between grades.
    Linear,
}

/// The 3×3 table of (grade by A, grade by B) counts.
pub fn table(pairs: &[(u8, u8)]) -> [[f64; GRADES]; GRADES] {
    let mut t = [[0.0; GRADES]; GRADES];
    for &(a, b) in pairs {
        t[(a as usize).min(GRADES - 1)][(b as usize).min(GRADES - 1)] += 1.0;
    }
    t
}

fn weight(w: Weights, i: usize, j: usize) -> f64 {
    match w {
        Weights::Plain => (i == j) as u8 as f64,
        Weights::Linear => 1.0 - (i as f64 - j as f64).abs() / (GRADES - 1) as f64,
    }
}

/// Observed agreement (weighted as `w` says) of a table.
pub fn observed(t: &[[f64; GRADES]; GRADES], w: Weights) -> f64 {
    let n: f64 = t.iter().flatten().sum();
    if n == 0.0 {
        return 0.0;
    }
    (0..GRADES).flat_map(|i| (0..GRADES).map(move |j| (i, j))).map(|(i, j)| weight(w, i, j) * t[i][j]).sum::<f64>() / n
}

/// Cohen's kappa of a table; None when there are no pairs or chance agreement is 1.
pub fn kappa(t: &[[f64; GRADES]; GRADES], w: Weights) -> Option<f64> {
    let n: f64 = t.iter().flatten().sum();
    if n == 0.0 {
        return None;
    }
    let rows: Vec<f64> = (0..GRADES).map(|i| t[i].iter().sum::<f64>() / n).collect();
    let cols: Vec<f64> = (0..GRADES).map(|j| (0..GRADES).map(|i| t[i][j]).sum::<f64>() / n).collect();
    let po = observed(t, w);
    let pe: f64 = (0..GRADES).flat_map(|i| (0..GRADES).map(move |j| (i, j))).map(|(i, j)| weight(w, i, j) * rows[i] * cols[j]).sum();
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    Some((po - pe) / (1.0 - pe))
}

/// Do two reference answers say the same thing? Yes/no answers: the same first word; otherwise
/// the same numbers both ways (years aside), or a token F1 of at least 0.8. Both empty agree.
pub fn answers_agree(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() || b.is_empty() {
        return a.is_empty() && b.is_empty();
    }
    if let Some(same) = yes_no(a, b) {
        return same;
    }
    if let (Some(x), Some(y)) = (number_recall(a, b), number_recall(b, a)) {
        return x >= 1.0 && y >= 1.0;
    }
    token_f1(a, b) >= 0.8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-checkable table (rows: annotator A's grade, columns: B's):
    ///
    /// ```text
    ///        B=0 B=1 B=2 | row
    ///   A=0   4   1   0  |  5
    ///   A=1   1   2   1  |  4
    ///   A=2   0   1   5  |  6
    ///   col   5   4   6  | 15
    /// ```
    /// Plain: p_o = 11/15, p_e = (5·5 + 4·4 + 6·6)/225 = 77/225, κ = (165-77)/(225-77) = 88/148.
    /// Linear: off-by-one cells weigh 1/2: p_o = (11 + 4/2)/15 = 13/15;
    /// p_e = (77 + (5·4 + 4·5 + 4·6 + 6·4)/2)/225 = 121/225, κ_w = (195-121)/(225-121) = 74/104.
    fn pairs() -> Vec<(u8, u8)> {
        let cells = [[4, 1, 0], [1, 2, 1], [0, 1, 5]];
        let mut v = Vec::new();
        for (a, row) in cells.iter().enumerate() {
            for (b, n) in row.iter().enumerate() {
                for _ in 0..*n {
                    v.push((a as u8, b as u8));
                }
            }
        }
        v
    }

    #[test]
    fn kappa_on_a_hand_checked_table() {
        let t = table(&pairs());
        assert!((observed(&t, Weights::Plain) - 11.0 / 15.0).abs() < 1e-12);
        assert!((kappa(&t, Weights::Plain).unwrap() - 88.0 / 148.0).abs() < 1e-12);
        assert!((observed(&t, Weights::Linear) - 13.0 / 15.0).abs() < 1e-12);
        assert!((kappa(&t, Weights::Linear).unwrap() - 74.0 / 104.0).abs() < 1e-12);
    }

    #[test]
    fn kappa_edges() {
        // perfect agreement on two grades: 1; one grade only: undefined; nothing: undefined
        assert_eq!(kappa(&table(&[(0, 0), (2, 2), (2, 2)]), Weights::Linear), Some(1.0));
        assert_eq!(kappa(&table(&[(1, 1), (1, 1)]), Weights::Plain), None);
        assert_eq!(kappa(&table(&[]), Weights::Plain), None);
        // systematic opposite grades: below zero
        assert!(kappa(&table(&[(0, 2), (2, 0)]), Weights::Linear).unwrap() < 0.0);
    }

    #[test]
    fn answer_agreement() {
        assert!(answers_agree("$1,577 million", "1577"));
        assert!(answers_agree("Yes, it is.", "yes"));
        assert!(!answers_agree("No", "Yes, clearly"));
        assert!(!answers_agree("$1,577 million", "$1,373 million"));
        assert!(answers_agree("Consumer segment", "the consumer segment"));
        assert!(!answers_agree("", "something"));
        assert!(answers_agree("", " "));
    }
}
