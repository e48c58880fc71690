def greet(name):
    return 'hello ' + name


def part(n):
    return n // 2
