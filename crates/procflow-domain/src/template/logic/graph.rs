//! Cycles among dependencies: a task cannot wait, however indirectly, on itself.

/// A cycle of `edges` (each node's prerequisites, by index), as the nodes met along it from
/// its first node back to it (`[a, b, a]`), or `None`. Nodes are visited in order, so the same
/// graph always names the same cycle. Iterative, so that a long chain cannot exhaust the stack;
/// linear in nodes plus edges.
pub(super) fn find_cycle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut marks = vec![Mark::New; edges.len()];
    for start in 0..edges.len() {
        if marks[start] != Mark::New {
            continue;
        }
        // The path from `start`, each node with the position of its next edge to follow.
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = Mark::OnPath;
        while let Some(&mut (node, ref mut next)) = path.last_mut() {
            let Some(&to) = edges[node].get(*next) else {
                marks[node] = Mark::Done;
                path.pop();
                continue;
            };
            *next += 1;
            match marks.get(to).copied() {
                Some(Mark::New) => {
                    marks[to] = Mark::OnPath;
                    path.push((to, 0));
                }
                Some(Mark::OnPath) => {
                    let from = path.iter().position(|&(n, _)| n == to).unwrap_or(0);
                    let mut cycle: Vec<usize> = path[from..].iter().map(|&(n, _)| n).collect();
                    cycle.push(to);
                    return Some(cycle);
                }
                Some(Mark::Done) | None => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::find_cycle;

    #[test]
    fn a_graph_without_cycles_has_none() {
        assert_eq!(find_cycle(&[vec![], vec![0], vec![0, 1], vec![2]]), None);
        assert_eq!(find_cycle(&[]), None);
    }

    #[test]
    fn a_cycle_is_named_from_its_first_node_back_to_it() {
        assert_eq!(
            find_cycle(&[vec![], vec![2], vec![3], vec![1]]),
            Some(vec![1, 2, 3, 1])
        );
        assert_eq!(find_cycle(&[vec![1], vec![0]]), Some(vec![0, 1, 0]));
    }

    #[test]
    fn a_self_loop_is_a_cycle_of_one() {
        assert_eq!(find_cycle(&[vec![0]]), Some(vec![0, 0]));
    }

    #[test]
    fn a_long_chain_does_not_exhaust_the_stack() {
        let n = 100_000;
        let mut edges: Vec<Vec<usize>> = (0..n).map(|i| vec![i + 1]).collect();
        edges[n - 1] = vec![];
        assert_eq!(find_cycle(&edges), None);
        edges[n - 1] = vec![0];
        assert_eq!(find_cycle(&edges).map(|c| c.len()), Some(n + 1));
    }
}
