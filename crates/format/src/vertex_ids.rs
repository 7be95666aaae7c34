//! The input's own ids of a compacted graph's vertices: 64-bit integers or names, held
//! ascending so that vertex `v` (before any reordering) is the `v`-th of them and an id
//! is found by binary search.

use crate::IdKind;

/// The ids of vertices `0..n`, ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VertexIds {
    /// Integers, strictly ascending.
    Integers(Vec<i64>),
    /// Names: vertex `v`'s is `bytes[offsets[v]..offsets[v + 1]]`, UTF-8, strictly
    /// ascending by bytes.
    Names {
        /// `n + 1` positions into `bytes`.
        offsets: Vec<u64>,
        /// The names, one after another.
        bytes: Vec<u8>,
    },
}

impl VertexIds {
    /// How many vertices.
    pub fn len(&self) -> usize {
        match self {
            VertexIds::Integers(ids) => ids.len(),
            VertexIds::Names { offsets, .. } => offsets.len().saturating_sub(1),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Integers or names.
    pub fn kind(&self) -> IdKind {
        match self {
            VertexIds::Integers(_) => IdKind::Integers,
            VertexIds::Names { .. } => IdKind::Names,
        }
    }

    /// Vertex `v`'s name (only for names).
    pub fn name(&self, v: usize) -> Option<&str> {
        match self {
            VertexIds::Integers(_) => None,
            VertexIds::Names { offsets, bytes } => {
                let range = offsets[v] as usize..offsets[v + 1] as usize;
                std::str::from_utf8(&bytes[range]).ok()
            }
        }
    }

    /// Vertex `v`'s id as text (the integer, or the name).
    pub fn text(&self, v: usize) -> String {
        match self {
            VertexIds::Integers(ids) => ids[v].to_string(),
            VertexIds::Names { .. } => self.name(v).unwrap_or_default().to_string(),
        }
    }

    /// The vertex the input called `id` (an integer written in decimal, or a name).
    pub fn position_of(&self, id: &str) -> Option<u32> {
        let found = match self {
            VertexIds::Integers(ids) => ids.binary_search(&id.trim().parse::<i64>().ok()?),
            VertexIds::Names { offsets, bytes } => {
                let name_of = |v: usize| &bytes[offsets[v] as usize..offsets[v + 1] as usize];
                let (mut low, mut high) = (0usize, self.len());
                let mut found = Err(low);
                while low < high {
                    let middle = low + (high - low) / 2;
                    match name_of(middle).cmp(id.as_bytes()) {
                        std::cmp::Ordering::Less => low = middle + 1,
                        std::cmp::Ordering::Greater => high = middle,
                        std::cmp::Ordering::Equal => {
                            found = Ok(middle);
                            break;
                        }
                    }
                }
                found
            }
        };
        found.ok().map(|v| v as u32)
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> u64 {
        match self {
            VertexIds::Integers(ids) => ids.len() as u64 * 8,
            VertexIds::Names { offsets, bytes } => offsets.len() as u64 * 8 + bytes.len() as u64,
        }
    }

    /// What is wrong with the table, if anything: ids not strictly ascending, offsets
    /// that leave the names or go backwards, a name that is not UTF-8. A forged file
    /// whose checksums match must not map two vertices to one id.
    pub fn problem(&self) -> Option<String> {
        match self {
            VertexIds::Integers(ids) => ids
                .windows(2)
                .position(|pair| pair[0] >= pair[1])
                .map(|at| format!("vertex ids {} and {} are not ascending", at, at + 1)),
            VertexIds::Names { offsets, bytes } => {
                if offsets.first() != Some(&0) || offsets.last() != Some(&(bytes.len() as u64)) {
                    return Some(
                        "name offsets do not start at 0 and end at the names' length".into(),
                    );
                }
                if let Some(at) = offsets.windows(2).position(|pair| pair[0] > pair[1]) {
                    return Some(format!("name offset {} goes backwards", at + 1));
                }
                let name_of = |v: usize| &bytes[offsets[v] as usize..offsets[v + 1] as usize];
                for v in 0..self.len() {
                    if std::str::from_utf8(name_of(v)).is_err() {
                        return Some(format!("the name of vertex {v} is not UTF-8"));
                    }
                    if v > 0 && name_of(v - 1) >= name_of(v) {
                        return Some(format!(
                            "the names of vertices {} and {v} are not ascending",
                            v - 1
                        ));
                    }
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> VertexIds {
        let mut offsets = vec![0];
        let mut bytes = Vec::new();
        for name in list {
            bytes.extend_from_slice(name.as_bytes());
            offsets.push(bytes.len() as u64);
        }
        VertexIds::Names { offsets, bytes }
    }

    #[test]
    fn ids_are_found_by_their_text() {
        let integers = VertexIds::Integers(vec![-5, 0, 7, 1 << 40]);
        assert_eq!(integers.position_of("-5"), Some(0));
        assert_eq!(integers.position_of("1099511627776"), Some(3));
        assert_eq!(integers.position_of("8"), None);
        assert_eq!(integers.position_of("x"), None);
        assert_eq!(integers.text(2), "7");
        let named = names(&["Ana María", "Zoë", "東京"]);
        assert_eq!(named.position_of("Zoë"), Some(1));
        assert_eq!(named.position_of("東京"), Some(2));
        assert_eq!(named.position_of("Ana"), None);
        assert_eq!(named.text(0), "Ana María");
        assert_eq!(named.problem(), None);
    }

    #[test]
    fn forged_tables_are_refused() {
        assert!(VertexIds::Integers(vec![1, 1]).problem().is_some());
        assert!(names(&["b", "a"]).problem().is_some());
        let broken = VertexIds::Names {
            offsets: vec![0, 5],
            bytes: b"ab".to_vec(),
        };
        assert!(broken.problem().is_some());
        let invalid = VertexIds::Names {
            offsets: vec![0, 1],
            bytes: vec![0xff],
        };
        assert!(invalid.problem().is_some());
    }
}
