"""``python -m dwqa_graph.cli``: the same CLI as the ``dwqa`` script."""

from dwqa_graph.cli.main import main

main()
