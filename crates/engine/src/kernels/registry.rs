//! The registry of every kernel: above the kernels, as the contract ([`crate::kernel`])
//! is below them, so that no kernel and the contract import each other.

use super::{
    betweenness, bfs, closeness, closeness_weighted, clustering, connected_components, core_number,
    eigenvector, hits, k_truss, katz, label_propagation, louvain, maximal_independent_set,
    neighbor_degree, pagerank, pagerank64, personalized_pagerank, radii, sssp,
    strongly_connected_components, triangle_count, vertex_triangles,
};
use crate::kernel::AnyKernel;

/// Every kernel, in the order the docs list them: adding a kernel adds a line here.
pub static KERNELS: [&dyn AnyKernel; 28] = [
    &bfs::Bfs,
    &pagerank::PageRank,
    &connected_components::ConnectedComponents,
    &sssp::Sssp,
    &betweenness::Betweenness::<false>,
    &triangle_count::TriangleCount,
    &vertex_triangles::VertexTriangles,
    &clustering::Clustering::<false>,
    &radii::Radii,
    &maximal_independent_set::MaximalIndependentSet,
    &core_number::CoreNumber,
    &personalized_pagerank::PersonalizedPageRank,
    &pagerank64::PageRank64::<false>,
    &pagerank64::PageRank64::<true>,
    &strongly_connected_components::StronglyConnectedComponents,
    &closeness::Closeness,
    &closeness_weighted::WeightedCloseness,
    &eigenvector::EigenvectorCentrality,
    &katz::KatzCentrality,
    &hits::Hits,
    &neighbor_degree::NeighborDegree::<false>,
    &neighbor_degree::NeighborDegree::<true>,
    &label_propagation::LabelPropagation,
    &louvain::Louvain::<false>,
    &louvain::Louvain::<true>,
    &betweenness::Betweenness::<true>,
    &clustering::Clustering::<true>,
    &k_truss::KTruss,
];
