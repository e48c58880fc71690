def greet(name):
    return 'hi ' + name


def part(n):
    # doubles n
    return n * 2
