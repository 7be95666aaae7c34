//! Single lists read for point queries (`Graph.neighbors`, common neighbors and Jaccard
//! coefficients of given pairs), outside any kernel run.

use std::path::PathBuf;

use numpy::{IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use swapless_run::{ListError, ListReader, ListSide};

/// The Python exception for a list that could not be read.
fn list_error(error: ListError) -> PyErr {
    match error {
        ListError::Format(error) => crate::format_error(error),
        ListError::NotAVertex { .. } => PyIndexError::new_err(error.to_string()),
        ListError::Far { .. } => PyValueError::new_err(error.to_string()),
    }
}

/// A local graph file opened to read single lists (positions in result-array order).
#[pyclass(frozen, name = "ListReader")]
pub struct PyListReader(ListReader);

#[pymethods]
impl PyListReader {
    /// Opens the graph at `path`.
    #[new]
    fn new(path: PathBuf) -> PyResult<PyListReader> {
        ListReader::open(&path)
            .map(PyListReader)
            .map_err(list_error)
    }

    /// The sorted, distinct positions of `position`'s out-list (`side` "in": its
    /// in-list), as an int64 array.
    fn neighbors(&self, py: Python<'_>, position: u64, side: &str) -> PyResult<Py<PyAny>> {
        let side = match side {
            "out" => ListSide::Out,
            "in" => ListSide::In,
            other => {
                return Err(PyValueError::new_err(format!(
                    "direction must be \"out\" or \"in\", not {other:?}"
                )));
            }
        };
        let positions = py
            .detach(|| self.0.neighbors(position, side))
            .map_err(list_error)?;
        let positions: Vec<i64> = positions.into_iter().map(i64::from).collect();
        Ok(positions.into_pyarray(py).into_any().unbind())
    }

    /// For each row `(u, v)` of `pairs` (positions), the distinct vertices both
    /// out-lists hold (`u` and `v` left out) and those either holds: two int64 arrays.
    fn pair_counts(
        &self,
        py: Python<'_>,
        pairs: PyReadonlyArray2<'_, i64>,
    ) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
        let pairs = pairs.as_array();
        if pairs.ncols() != 2 {
            return Err(PyValueError::new_err("pairs must have two columns"));
        }
        let vertices = self.0.vertices();
        let mut asked = Vec::with_capacity(pairs.nrows());
        for row in pairs.rows() {
            let (u, v) = (row[0], row[1]);
            if u < 0 || v < 0 || u as u64 >= vertices || v as u64 >= vertices {
                return Err(PyIndexError::new_err(format!(
                    "the pair ({u}, {v}) is not two vertices of a graph of {vertices}"
                )));
            }
            asked.push((u as u64, v as u64));
        }
        let counts = py
            .detach(|| self.0.pair_counts(&asked))
            .map_err(list_error)?;
        let common: Vec<i64> = counts.iter().map(|c| c.common as i64).collect();
        let union: Vec<i64> = counts.iter().map(|c| c.union as i64).collect();
        Ok((
            common.into_pyarray(py).into_any().unbind(),
            union.into_pyarray(py).into_any().unbind(),
        ))
    }
}
