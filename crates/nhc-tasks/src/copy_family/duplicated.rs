//! duplicated: ℓ objects, consecutive ones different, each presented ℓ times in a row; output
//! each once, in order (SPEC §9). Solved by [`ForwardScript`] with repeats freed on writing.

use super::copy::ForwardScript;
use super::*;
use crate::Task;

pub struct Duplicated;

impl Task for Duplicated {
    type Data = Object;
    type Sample = Sequence;
    type Answer = Vec<Object>;
    type Modules = SequenceModules;
    type Scripted = ForwardScript;
    const NAME: &'static str = "duplicated";
    const OPS: &'static [&'static str] = &["O", "M"];

    fn config() -> Config {
        config(SignalSet::FirstRepeat)
    }
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
    fn modules(s: &Sequence) -> SequenceModules {
        SequenceModules::new(s, SignalSet::FirstRepeat)
    }
    fn trace(s: &Sequence) -> Trace<Object> {
        trace(s.items.len(), &[&Self::reference(s)])
    }
    fn reference(s: &Sequence) -> Vec<Object> {
        let mut out = s.items.clone();
        out.dedup();
        out
    }
    fn answer(m: &SequenceModules) -> Vec<Object> {
        m.outputs().to_vec()
    }
    fn scripted() -> ForwardScript {
        ForwardScript { signals: SignalSet::FirstRepeat }
    }
    fn parse_input(v: &serde_json::Value) -> Result<Sequence, InputError> {
        let items = parse_objects(v)?;
        if items.is_empty() {
            return Err(InputError::new("the list must hold at least one object"));
        }
        Ok(Sequence { items, passes: 1 })
    }
    fn answer_json(a: &Vec<Object>) -> serde_json::Value {
        objects_json(a)
    }
    fn show(d: &Object) -> String {
        show(d)
    }
}
