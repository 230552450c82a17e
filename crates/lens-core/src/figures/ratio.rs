//! Exact rational arithmetic for worked answers: statement figures are decimals, and sums,
//! averages and ratios of them stay exact until the result is rounded for display.

use std::cmp::Ordering;
use std::fmt;

/// `num / den`, reduced, `den > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    num: i128,
    den: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

impl Ratio {
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };

    pub fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den);
        let s = if den < 0 { -1 } else { 1 };
        Some(Ratio { num: s * num / g, den: s * den / g })
    }

    pub fn int(n: i64) -> Ratio {
        Ratio { num: n as i128, den: 1 }
    }

    /// A decimal as printed: `1,577`, `-12.5`, `0.66` (commas ignored).
    pub fn parse(s: &str) -> Option<Ratio> {
        let s: String = s.chars().filter(|c| *c != ',').collect();
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r.to_string()),
            None => (false, s),
        };
        let (int, frac) = s.split_once('.').unwrap_or((&s, ""));
        if int.is_empty() && frac.is_empty() || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) || frac.len() > 12 || int.len() > 20 {
            return None;
        }
        let den = 10i128.pow(frac.len() as u32);
        let num: i128 = format!("{int}{frac}").parse().ok()?;
        Ratio::new(if neg { -num } else { num }, den)
    }

    pub fn is_zero(&self) -> bool {
        self.num == 0
    }

    pub fn checked_add(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.den)?.checked_add(o.num.checked_mul(self.den)?)?, self.den.checked_mul(o.den)?)
    }
    pub fn checked_sub(self, o: Ratio) -> Option<Ratio> {
        self.checked_add(Ratio { num: -o.num, den: o.den })
    }
    pub fn checked_mul(self, o: Ratio) -> Option<Ratio> {
        let (g1, g2) = (gcd(self.num, o.den), gcd(o.num, self.den));
        Ratio::new((self.num / g1).checked_mul(o.num / g2)?, (self.den / g2).checked_mul(o.den / g1)?)
    }
    /// `None` when dividing by zero (or on overflow).
    pub fn checked_div(self, o: Ratio) -> Option<Ratio> {
        if o.num == 0 {
            return None;
        }
        self.checked_mul(Ratio { num: o.den, den: o.num }.norm())
    }
    fn norm(self) -> Ratio {
        Ratio::new(self.num, self.den).expect("nonzero denominator")
    }

    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// Rounded half away from zero to `places` decimals, as text (`-3.70`, `1,577.00` without
    /// separators: `1577.00`).
    pub fn round_str(self, places: u32) -> String {
        let scale = 10i128.pow(places);
        let n = self.num.checked_mul(scale).map(|m| {
            let (q, r) = (m / self.den, m % self.den);
            if 2 * r.abs() >= self.den {
                q + m.signum()
            } else {
                q
            }
        });
        let Some(n) = n else { return format!("{:.*}", places as usize, self.to_f64()) };
        let sign = if n < 0 { "-" } else { "" };
        let (i, f) = (n.abs() / scale, n.abs() % scale);
        if places == 0 {
            format!("{sign}{i}")
        } else {
            format!("{sign}{i}.{f:0width$}", width = places as usize)
        }
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, o: &Ratio) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ratio {
    fn cmp(&self, o: &Ratio) -> Ordering {
        (self.num * o.den).cmp(&(o.num * self.den))
    }
}

/// A decimal as printed in a statement, with thousands separators: "2912853" -> "2,912,853",
/// "-1577.5" -> "-1,577.5"; anything else is returned as it is.
pub fn grouped(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest.split_once('.').map_or((rest, None), |(a, b)| (a, Some(b)));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return s.to_string();
    }
    let mut g = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            g.push(',');
        }
        g.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{g}.{f}"),
        None => format!("{sign}{g}"),
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        // exact when the decimal terminates within 6 places, else 6 places
        for p in 0..=6u32 {
            if (self.num * 10i128.pow(p)) % self.den == 0 {
                return f.write_str(&self.round_str(p));
            }
        }
        f.write_str(&self.round_str(6))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_arithmetic_and_rounding() {
        let r = |s| Ratio::parse(s).unwrap();
        assert_eq!(r("1,577").to_string(), "1577");
        assert_eq!(r("0.1").checked_add(r("0.2")).unwrap(), r("0.3"));
        assert_eq!(r("-12.50").to_string(), "-12.5");
        // 365 * avg(AP) / COGS, by hand: 365 * (100 + 120) / 2 / 1000 = 40.15
        let v = r("365").checked_mul(r("100").checked_add(r("120")).unwrap()).unwrap().checked_div(r("2")).unwrap().checked_div(r("1000")).unwrap();
        assert_eq!(v.to_string(), "40.15");
        assert_eq!(r("2").checked_div(r("3")).unwrap().round_str(2), "0.67");
        assert_eq!(r("-2").checked_div(r("3")).unwrap().round_str(2), "-0.67");
        assert_eq!(r("0.125").round_str(2), "0.13");
        assert_eq!(r("24.255").round_str(2), "24.26");
        assert!(r("5").checked_div(Ratio::ZERO).is_none());
        for bad in ["", "abc", "1.2.3", "--1", "1e5"] {
            assert!(Ratio::parse(bad).is_none(), "{bad}");
        }
        assert!(r("1.5") > r("1.25"));
    }
}
