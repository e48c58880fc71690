def greet(name):
    return 'hi ' + name


def part(n):
    return n * 3
