from report.numbers import percent


def line(label, part, whole):
    return f'{label}: {percent(part, whole)}'
