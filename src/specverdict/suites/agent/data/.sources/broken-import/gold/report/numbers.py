def percent(part, whole):
    return f'{100 * part / whole:.1f}%'
