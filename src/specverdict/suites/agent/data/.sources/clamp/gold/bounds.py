def clamp(value, low, high):
    return max(low, min(high, value))
