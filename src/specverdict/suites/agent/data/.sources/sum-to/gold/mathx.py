def sum_to(n):
    total = 0
    for i in range(n + 1):
        total += i
    return total
