//! Every scripted solution of the paper's eleven tasks solves its samples under both readings of
//! a read mode with no target ([`MissingLink`], docs/DESIGN.md, "Missing links"): none of them
//! relies on what such a read returns.

use nhc_model::{Config, Machine, MissingLink};
use nhc_tasks::Task;
use nhc_tasks::addition::Addition;
use nhc_tasks::arithmetic::{Arithmetic, Decimal};
use nhc_tasks::copy_family::{Binary, Copy, Duplicated, RepeatCopy, Reverse};
use nhc_tasks::evaluate::score_sample;
use nhc_tasks::sample_rng;
use nhc_tasks::search_plan::{SearchPlan, sokoban::Sokoban};
use nhc_tasks::sort::{Bytes, Sort};

/// Samples of `level` (sample seed 3) the scripted solution solves under `missing_link`.
fn solved<T: Task>(task: &T, missing_link: MissingLink, level: usize, samples: u64) -> usize {
    let config = Config { missing_link, ..task.algorithm().config.clone() };
    let mut machine = Machine::new(&config);
    (0..samples)
        .filter(|&i| {
            let sample = task.sample(level, &mut sample_rng(3, level, i));
            let mut policy = task.scripted();
            score_sample(task, &mut machine, policy.as_mut(), &sample).1
        })
        .count()
}

fn check<T: Task>(task: T, level: usize) {
    for missing_link in [MissingLink::Stay, MissingLink::Empty] {
        let name = task.algorithm().name;
        assert_eq!(solved(&task, missing_link, level, 10), 10, "{name} under {missing_link:?}");
    }
}

#[test]
fn scripted_solutions_solve_under_both_readings() {
    check(SearchPlan::<Sokoban<6>>::SEARCH, 30);
    check(SearchPlan::<Sokoban<6>>::PLAN, 30);
    check(SearchPlan::<Sokoban<6>>::SEARCH_PLUS, 30);
    check(SearchPlan::<Sokoban<6>>::PLAN_PLUS, 30);
    check(Addition::BINARY, 30);
    check(Sort(Bytes), 30);
    check(Arithmetic(Decimal), 30);
    check(Copy(Binary), 30);
    check(RepeatCopy(Binary), 30);
    check(Reverse(Binary), 30);
    check(Duplicated(Binary), 30);
}
