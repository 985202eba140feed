"""Unweighted shortest paths."""

from collections import deque


def shortest_path(graph, start, goal):
    """A shortest path from start to goal as a list of nodes, or None."""
    previous = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for neighbour in graph.get(node, ()):
            if neighbour in previous:
                continue
            previous[neighbour] = node
            if neighbour == goal:
                return _walk_back(previous, goal)
            queue.append(neighbour)
    return None


def _walk_back(previous, node):
    path = []
    while node is not None:
        path.append(node)
        node = previous[node]
    return path[::-1]
