//! Words for people: how messages name a position in a user's input. Every message counts
//! from 1 and says it with an ordinal, "the 2nd number", "the 3rd row".

/// The 0-based position `i` as a 1-based English ordinal: 0 → "1st", 1 → "2nd", 10 → "11th",
/// 20 → "21st".
pub fn ordinal(i: usize) -> String {
    let n = i as u128 + 1;
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::ordinal;

    #[test]
    fn ordinals_count_from_one_with_english_suffixes() {
        let cases = [
            (1, "1st"),
            (2, "2nd"),
            (3, "3rd"),
            (4, "4th"),
            (10, "10th"),
            (11, "11th"),
            (12, "12th"),
            (13, "13th"),
            (14, "14th"),
            (21, "21st"),
            (22, "22nd"),
            (23, "23rd"),
            (100, "100th"),
            (101, "101st"),
            (102, "102nd"),
            (111, "111th"),
            (112, "112th"),
            (113, "113th"),
            (1001, "1001st"),
            (1011, "1011th"),
        ];
        for (n, word) in cases {
            assert_eq!(ordinal(n - 1), word, "position {n}");
        }
        let last = usize::MAX as u128 + 1;
        assert_eq!(ordinal(usize::MAX), format!("{last}th"), "the last position does not overflow");
    }
}
