def greet(name):
    return 'hi ' + name


def part(n):
    return 2 * n
