//! duplicated: ℓ objects, consecutive ones different, each presented ℓ times in a row; output
//! each once, in order (SPEC §9). Solved by [`ForwardScript`] with repeats freed on writing.

use super::copy::ForwardScript;
use super::*;
use crate::Task;

pub struct Duplicated;

impl Task for Duplicated {
    type Scripted = ForwardScript;
    const NAME: &'static str = "duplicated";
    sequence_task!(SignalSet::FirstRepeat);

    fn sample(level: usize, rng: &mut SampleRng) -> Sequence {
        let mut distinct: Vec<Object> = Vec::with_capacity(level);
        while distinct.len() < level {
            let x = random_objects(1, rng)[0];
            if distinct.last() != Some(&x) {
                distinct.push(x);
            }
        }
        let items = distinct.iter().flat_map(|&x| std::iter::repeat_n(x, level)).collect();
        Sequence { items, passes: 1 }
    }
    fn trace(s: &Sequence) -> Trace<Object> {
        trace(s.items.len(), &[&Self::reference(s)])
    }
    fn reference(s: &Sequence) -> Vec<Object> {
        let mut out = s.items.clone();
        out.dedup();
        out
    }
    fn scripted() -> ForwardScript {
        ForwardScript { signals: SignalSet::FirstRepeat }
    }
    fn parse_input(v: &serde_json::Value) -> Result<Sequence, InputError> {
        parse_list(v)
    }
}
