//! Episodes (the DNC baseline's view of a sample) against the samples they record.

use nhc_tasks::arithmetic::{Algebra, Arithmetic, Mod10, Operator, Token, evaluate};
use nhc_tasks::registry::find_in;
use nhc_tasks::{SampleRng, Task, TaskError, sample_rng};
use rand::SeedableRng;

/// The DNC row's tasks and domains (the paper's, arithmetic mod 10).
const DNC_TASKS: [(&str, &str); 8] = [
    ("search", "sokoban6"),
    ("addition", "binary"),
    ("sort", "bytes"),
    ("arithmetic", "mod10"),
    ("copy", "binary"),
    ("repeatCopy", "binary"),
    ("reverse", "binary"),
    ("duplicated", "binary"),
];

#[test]
fn episodes_have_their_shapes_and_every_target() {
    for (name, domain) in DNC_TASKS {
        let task = find_in(name, Some(domain)).unwrap();
        let shape = task.episode_shape().unwrap();
        for level in 1..=4 {
            let e = task.episode(level, &mut sample_rng(3, level, 0)).unwrap();
            assert!(e.steps > 0);
            assert_eq!(e.inputs.len(), e.steps * shape.input(), "{name}");
            assert_eq!(e.ops.len(), e.steps);
            assert_eq!(e.read_expected.len(), e.steps * shape.read_heads);
            assert_eq!(e.reads.len(), e.steps * shape.read_heads * shape.word.count);
            assert!(e.ops.iter().flatten().all(|&op| usize::from(op) < shape.ops));
            assert!(e.reads.iter().all(|&f| usize::from(f) < shape.word.classes));
            assert!(e.locations >= 1);
            // Every word is one-hot by field, and the first step has no operation before it.
            let w = shape.word.one_hot();
            for t in 0..e.steps {
                let x = &e.inputs[t * shape.input()..(t + 1) * shape.input()];
                let word = &x[shape.signals + shape.feedback..][..w];
                for field in word.chunks(shape.word.classes) {
                    assert_eq!(field.iter().sum::<f32>(), 1.0, "{name}");
                }
                let last_op: f32 = x[shape.input() - shape.ops..].iter().sum();
                assert_eq!(last_op, if t == 0 { 0.0 } else { 1.0 }, "{name}");
            }
        }
    }
}

#[test]
fn the_same_sample_gives_the_same_episode() {
    let task = find_in("sort", None).unwrap();
    let a = task.episode(5, &mut sample_rng(9, 5, 2)).unwrap();
    let b = task.episode(5, &mut sample_rng(9, 5, 2)).unwrap();
    assert_eq!(a, b);
}

/// copy: the presented words are the sample's objects, and the reads the output expects are the
/// same objects in order.
#[test]
fn copy_episodes_show_and_expect_the_objects() {
    let task = find_in("copy", Some("binary")).unwrap();
    let shape = task.episode_shape().unwrap();
    let level = 5;
    let (input, _) = task.sample(level, 4, 0).unwrap();
    let objects: Vec<Vec<u8>> = serde_json::from_value(input).unwrap();
    let e = task.episode(level, &mut sample_rng(4, level, 0)).unwrap();
    let w = shape.word.one_hot();
    for (t, object) in objects.iter().enumerate() {
        let x = &e.inputs[t * shape.input() + shape.signals + shape.feedback..][..w];
        let bits: Vec<u8> = x.chunks(2).map(|f| f[1] as u8).collect();
        assert_eq!(&bits, object, "presented object {t}");
    }
    let expected: Vec<Vec<u8>> = (0..e.steps)
        .filter(|&t| e.read_expected[t])
        .map(|t| e.reads[t * shape.word.count..(t + 1) * shape.word.count].to_vec())
        .collect();
    assert_eq!(expected, objects);
}

#[test]
fn mod10_computes_modulo_10() {
    let a = Mod10;
    // 7 8 * 9 + : 56 mod 10 = 6, then 15 mod 10 = 5.
    let tokens = [
        Token::Value(7),
        Token::Value(8),
        Token::Op(Operator::Mul),
        Token::Value(9),
        Token::Op(Operator::Add),
    ];
    assert_eq!(evaluate(&a, &tokens), Ok(5));
    let task = Arithmetic(Mod10);
    let mut rng = SampleRng::seed_from_u64(1);
    for level in 1..=8 {
        let e = task.sample(level, &mut rng);
        // An independent stack evaluation in i64, mod 10 after every operator.
        let mut stack: Vec<i64> = Vec::new();
        for t in &e.tokens {
            match *t {
                Token::Value(v) => stack.push(i64::from(v)),
                Token::Op(o) => {
                    let (y, x) = (stack.pop().unwrap(), stack.pop().unwrap());
                    let r = match o {
                        Operator::Add => x + y,
                        Operator::Sub => x - y,
                        Operator::Mul => x * y,
                        Operator::Div => x.div_euclid(y),
                    };
                    stack.push(r.rem_euclid(10));
                }
            }
        }
        assert_eq!(task.reference(&e).map(i64::from), stack.pop());
    }
    let mut f = [0u8; 5];
    a.fields(&9, &mut f);
    assert_eq!(f, [0, 1, 0, 0, 1]);
    a.fields(&Operator::Mul.code(), &mut f);
    assert_eq!(f, [1, 0, 1, 0, 0]);
}

#[test]
fn a_domain_without_fields_is_refused() {
    let task = find_in("copy", Some("decimal")).unwrap();
    assert!(task.episode_shape().is_none());
    let err = task.episode(2, &mut sample_rng(0, 2, 0)).unwrap_err();
    assert!(matches!(err, TaskError::Episode(_)), "{err}");
    assert!(err.to_string().contains("no encoding"), "{err}");
    assert!(matches!(task.episode(0, &mut sample_rng(0, 0, 0)), Err(TaskError::Level(0))));
}
