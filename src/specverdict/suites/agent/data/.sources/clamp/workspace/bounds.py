def clamp(value, low, high):
    return max(high, min(low, value))
