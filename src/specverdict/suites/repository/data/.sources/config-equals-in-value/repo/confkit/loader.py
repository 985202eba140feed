from confkit.parser import parse


def load(path):
    with open(path, encoding="utf-8") as fh:
        return parse(fh.read())
