//! The ids' first pass, their table and their parsing, on small inputs.

use super::*;

fn gathered(tokens: &[&str]) -> DistinctIds {
    let mut ids = DistinctIds::integers();
    let all_integers = tokens
        .iter()
        .all(|token| matches!(ids.add(token.as_bytes()), Gathered::Added));
    if !all_integers {
        ids = DistinctIds::names();
        for token in tokens {
            ids.add(token.as_bytes());
        }
    }
    ids
}

#[test]
fn integers_of_any_size_and_sign_find_their_vertices() {
    let tokens = [
        "9223372036854775807",
        "-3",
        "17",
        "17",
        "+5",
        "-9223372036854775808",
    ];
    let ids = gathered(&tokens).finish();
    assert_eq!(
        ids,
        VertexIds::Integers(vec![i64::MIN, -3, 5, 17, i64::MAX])
    );
    let table = IdTable::new(ids);
    assert_eq!(table.vertex_of(b"-9223372036854775808"), Some(0));
    assert_eq!(table.vertex_of(b"5"), Some(2));
    assert_eq!(table.vertex_of(b"9223372036854775807"), Some(4));
    assert_eq!(table.vertex_of(b"6"), None);
    assert_eq!(table.vertex_of(b"x"), None);
}

#[test]
fn many_sparse_integers_are_found() {
    let mut ids = DistinctIds::integers();
    let values: Vec<i64> = (0..300_000i64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64))
        .collect();
    for value in &values {
        assert!(matches!(
            ids.add(value.to_string().as_bytes()),
            Gathered::Added
        ));
    }
    let table = IdTable::new(ids.finish());
    let VertexIds::Integers(sorted) = table.ids() else {
        panic!("integers expected")
    };
    assert_eq!(sorted.len(), values.len());
    for value in values.iter().step_by(97) {
        let v = table.vertex_of(value.to_string().as_bytes()).unwrap();
        assert_eq!(sorted[v as usize], *value);
    }
}

#[test]
fn names_turn_the_whole_input_to_names() {
    let ids = gathered(&["12", "Zoë", "a b", "12", "東京"]).finish();
    assert_eq!(ids.len(), 4);
    assert_eq!(ids.text(0), "12");
    let table = IdTable::new(ids);
    assert_eq!(table.vertex_of("東京".as_bytes()), Some(3));
    assert_eq!(table.vertex_of(b"12"), Some(0));
    assert_eq!(table.vertex_of(b"13"), None);
}

#[test]
fn names_that_would_garble_a_table_are_refused() {
    let mut ids = DistinctIds::names();
    for bad in [&b"ab\x01"[..], b"\xff\xfe", b""] {
        assert!(matches!(ids.add(bad), Gathered::Refused(_)), "{bad:?}");
    }
    assert!(matches!(ids.add("Zoë 東京".as_bytes()), Gathered::Added));
}

#[test]
fn a_cancelled_build_stops_gathering_its_ids() {
    let cancel = std::sync::atomic::AtomicBool::new(true);
    let passes = IdPasses {
        cancel: Some(&cancel),
        ..IdPasses::default()
    };
    let mut offered = 0u64;
    let result = compact_ids(Path::new("input"), u64::MAX, passes, |add| {
        for id in 0..1_000_000i64 {
            offered += 1;
            if let Gathered::Stop = add(IdValue::Integer(id)) {
                break;
            }
        }
        Ok(())
    });
    assert!(matches!(result, Err(BuildError::Interrupted)));
    // At the first check, not at the end of the input.
    assert_eq!(offered, 1 << 17);
}

#[test]
fn parsing_integers_is_strict() {
    assert_eq!(parse_integer(b"-0"), Some(0));
    assert_eq!(parse_integer(b"1e3"), None);
    assert_eq!(parse_integer(b"9223372036854775808"), None);
    assert_eq!(parse_integer(b"-"), None);
    assert_eq!(parse_integer(b" 1"), None);
    assert_eq!(parse_integer(b"-9223372036854775808"), Some(i64::MIN));
    assert_eq!(parse_integer(b"-9223372036854775809"), None);
    assert_eq!(parse_integer(b"+007"), Some(7));
}
