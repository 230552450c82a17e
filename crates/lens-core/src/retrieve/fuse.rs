//! Step 4: fusion. Weighted score fusion (the default) or reciprocal rank fusion (`score = sum
//! of weight / (k0 + rank)`) of any number of ranked lists of the same group, and the
//! round-robin merge of groups.

use crate::index::IndexHit;
use std::collections::{HashMap, HashSet};

/// Fuse `lists` (each with its weight) into one ranking of at most `k` pages. A single list is
/// returned as it is (its scores kept); ties are broken by document key, then page.
pub fn fuse(lists: &[(&[IndexHit], f32)], k0: f32, k: usize) -> Vec<IndexHit> {
    if let [(only, _)] = lists {
        return only.iter().take(k).copied().collect();
    }
    rrf(lists, k0, k)
}

/// Weighted score fusion (CombSUM over min-max normalised scores): each list's scores mapped
/// to 0..1 between its last and its first page, a page missing from a list scoring 0 there.
/// Unlike [`rrf`], how far apart two pages score in a list counts, not only their order.
pub fn mix(lists: &[(&[IndexHit], f32)], k: usize) -> Vec<IndexHit> {
    combine(lists, k, |list, _, h| {
        let (top, last) = (list[0].score, list[list.len() - 1].score);
        (h.score - last) / (top - last).max(f32::MIN_POSITIVE)
    })
}

/// Weighted reciprocal rank fusion (Cormack et al. 2009); pages first seen in an earlier list
/// keep their place among equals.
pub fn rrf(lists: &[(&[IndexHit], f32)], k0: f32, k: usize) -> Vec<IndexHit> {
    combine(lists, k, |_, rank, _| 1.0 / (k0 + rank as f32 + 1.0))
}

/// Sum over the lists of weight x `part(list, rank, hit)` per page; the best `k`, ties by
/// document key, then page.
fn combine(lists: &[(&[IndexHit], f32)], k: usize, part: impl Fn(&[IndexHit], usize, &IndexHit) -> f32) -> Vec<IndexHit> {
    let mut acc: HashMap<(i64, u32), f32> = HashMap::new();
    let mut first_seen: Vec<(i64, u32)> = Vec::new();
    for (list, w) in lists {
        for (r, h) in list.iter().enumerate() {
            let e = acc.entry((h.doc_key, h.page)).or_insert_with(|| {
                first_seen.push((h.doc_key, h.page));
                0.0
            });
            *e += w * part(list, r, h);
        }
    }
    let mut out: Vec<IndexHit> = first_seen.into_iter().map(|(doc_key, page)| IndexHit { doc_key, page, score: acc[&(doc_key, page)] }).collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc_key.cmp(&b.doc_key)).then(a.page.cmp(&b.page)));
    out.truncate(k);
    out
}

/// Round-robin merge of ranked lists (one per document group), dropping duplicates, up to `k`.
pub fn interleave(lists: &[Vec<IndexHit>], k: usize) -> Vec<IndexHit> {
    if let [only] = lists {
        return only.iter().take(k).copied().collect();
    }
    let mut out: Vec<IndexHit> = Vec::new();
    let mut seen = HashSet::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    'outer: for i in 0..longest {
        for l in lists {
            if let Some(h) = l.get(i) {
                if seen.insert((h.doc_key, h.page)) {
                    out.push(*h);
                    if out.len() >= k {
                        break 'outer;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(k: i64, p: u32) -> IndexHit {
        IndexHit { doc_key: k, page: p, score: 0.0 }
    }

    #[test]
    fn rrf_rewards_agreement() {
        let a = [h(1, 1), h(1, 2), h(1, 3)];
        let b = [h(1, 3), h(1, 4), h(1, 1)];
        let f = rrf(&[(&a, 1.0), (&b, 1.0)], 60.0, 10);
        assert_eq!((f[0].page, f[1].page), (1, 3));
        assert_eq!(f.len(), 4);
        // a zero-weight list changes nothing but adds its pages at the end
        let f = rrf(&[(&a, 1.0), (&b, 0.0)], 60.0, 3);
        assert_eq!(f.iter().map(|x| x.page).collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    #[test]
    fn three_lists_fuse_and_one_list_passes_through() {
        let a = [h(1, 1), h(1, 2), h(1, 3)];
        let b = [h(1, 2), h(1, 1)];
        let c = [h(1, 2), h(2, 9)];
        // page 2 is first or second in all three lists: it wins; a third list's page joins
        let f = fuse(&[(&a, 1.0), (&b, 0.5), (&c, 0.5)], 60.0, 10);
        assert_eq!(f.iter().map(|x| (x.doc_key, x.page)).collect::<Vec<_>>(), vec![(1, 2), (1, 1), (1, 3), (2, 9)]);
        // with weight on the third list only its order decides
        let f = fuse(&[(&a, 0.0), (&b, 0.0), (&c, 1.0)], 60.0, 2);
        assert_eq!(f.iter().map(|x| (x.doc_key, x.page)).collect::<Vec<_>>(), vec![(1, 2), (2, 9)]);
        let scored = [IndexHit { doc_key: 1, page: 5, score: 7.5 }];
        assert_eq!(fuse(&[(&scored, 1.0)], 60.0, 10)[0].score, 7.5);
    }

    #[test]
    fn mix_weighs_how_far_apart_pages_score() {
        let s = |p: u32, score: f32| IndexHit { doc_key: 1, page: p, score };
        // BM25 barely prefers page 1 over 2; the dense list is sure page 2 beats page 1
        let bm25 = [s(1, 1.0), s(2, 0.98), s(3, 0.5)];
        let dense = [s(4, 0.8), s(2, 0.79), s(1, 0.2)];
        let f = mix(&[(&bm25, 1.0), (&dense, 1.0)], 10);
        assert_eq!(f.iter().map(|x| x.page).collect::<Vec<_>>(), vec![2, 1, 4, 3]);
        // (pages 1 and 4 tie, each first in one list: the lower page first); by ranks alone page 1
        // (first and third) edges page 2 (second and second)
        assert_eq!(rrf(&[(&bm25, 1.0), (&dense, 1.0)], 60.0, 1)[0].page, 1);
        // an empty list or one of equal scores adds nothing and divides by nothing
        let flat = [s(5, 0.3), s(6, 0.3)];
        let f = mix(&[(&bm25, 1.0), (&[], 1.0), (&flat, 1.0)], 10);
        assert_eq!(f[0].page, 1);
        assert!(f.iter().all(|x| x.score.is_finite()));
    }

    #[test]
    fn interleave_takes_turns_and_drops_repeats() {
        let g1 = vec![h(1, 1), h(1, 2)];
        let g2 = vec![h(2, 1), h(1, 1), h(2, 2)];
        let m = interleave(&[g1, g2], 10);
        assert_eq!(m.iter().map(|x| (x.doc_key, x.page)).collect::<Vec<_>>(), vec![(1, 1), (2, 1), (1, 2), (2, 2)]);
    }
}
