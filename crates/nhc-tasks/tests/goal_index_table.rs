//! sokoban6's goal-index table (docs/DESIGN.md, "search and plan, goal indices"): the first start
//! from which the goal first appears at each node of levels 1–250, and the indices no start has.

use nhc_tasks::search_plan::World;
use nhc_tasks::search_plan::goal_index_table::{NONE, SOKOBAN6};
use nhc_tasks::search_plan::listing::{goal_index_starts, goal_index_starts_among, goal_indices, goals};
use nhc_tasks::search_plan::sokoban::Sokoban;

const LEVELS: u64 = 250;

fn table() -> Vec<Option<u64>> {
    SOKOBAN6.iter().map(|&s| (s != NONE).then_some(u64::from(s))).collect()
}

/// The scan against the BFS the listing grows ([`goals`]), start by start.
#[test]
fn the_scan_finds_what_each_start_s_search_tree_has() {
    let world = Sokoban::<6>;
    let starts = world.starts().expect("sokoban6 lists its starts");
    let (from, to) = (1_000, 1_300);
    let mut first = vec![None; 4 * LEVELS as usize];
    for s in from..to {
        for (_, g) in goals(&world, &(starts.nth)(s), false, LEVELS as usize).1 {
            first[g - 1] = first[g - 1].or(Some(s));
        }
    }
    assert_eq!(goal_index_starts_among(&world, LEVELS, from..to), Some(first));
}

/// Every start the table names is the first to have its goal index: the scan of the starts up
/// to the last it names finds exactly those.
#[test]
fn each_start_of_the_table_is_the_first_with_its_goal_index() {
    let table = table();
    let last = table.iter().flatten().max().copied().expect("some goal index has a start");
    let scanned = goal_index_starts_among(&Sokoban::<6>, LEVELS, 0..last + 1).expect("a scan");
    assert_eq!(scanned, table);
    assert_eq!(table.iter().flatten().count(), 703);
    // Four moves one way in a room four cells wide: the fourth has no effect.
    assert!([85, 170, 255, 340].iter().all(|&g: &usize| table[g - 1].is_none()));
}

/// No start past the last the table names has a goal index it lacks: every start searched.
/// Minutes: `cargo test --release -p nhc-tasks --test goal_index_table -- --ignored`.
#[test]
#[ignore]
fn no_start_has_a_goal_index_the_table_lacks() {
    assert_eq!(goal_index_starts(&Sokoban::<6>, LEVELS), Some(table()));
}

/// Past the table's 250 levels the part searches evenly spaced starts and says which goal
/// indices it did not find are not verified.
#[test]
fn past_the_table_the_part_searches_and_names_what_it_did_not_verify() {
    let world = Sokoban::<6>;
    let within = goal_indices(&world, true, LEVELS).expect("a part");
    assert!(within.what.contains("some start has (703 of 1000; every start searched)"), "{}", within.what);
    assert_eq!(within.count, 703);
    let past = goal_indices(&world, true, LEVELS + 1).expect("a part");
    assert!(past.what.contains("found in 3984 starts"), "{}", past.what);
    let note = past.note.as_deref().expect("indices not found");
    assert!(note.ends_with("goal indices are not verified"), "{note}");
    assert!(past.count < 1004 && past.count >= 703, "{}", past.count);
}
