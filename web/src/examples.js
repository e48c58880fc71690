// The examples of the Example menu: replies to FILE (at src/app.py) or to
// their own `file` at `path`.
export const FILE = [
  '"""Greets people."""',
  '',
  '',
  'def greet(name):',
  '    name = name.strip()',
  '    print("Hello, " + name)',
  '',
  '',
  'def farewell(name):',
  '    name = name.strip()',
  '    print("Goodbye, " + name)',
  '',
  '',
  'if __name__ == "__main__":',
  '    greet("world")',
  '',
].join('\n');

const fence = '```';
const block = (search, replace) =>
  ['src/app.py', `${fence}python`, '<<<<<<< SEARCH', ...search, '=======', ...replace, '>>>>>>> REPLACE', fence];

// Each example is a reply to FILE, or to its own `file` at `path`.
export const EXAMPLES = [
  {
    label: 'Example: an edit that applies',
    reply: [
      'Use an f-string and type hints in `greet`:',
      '',
      ...block(
        ['def greet(name):', '    name = name.strip()', '    print("Hello, " + name)'],
        ['def greet(name: str) -> None:', '    name = name.strip()', '    print(f"Hello, {name}!")'],
      ),
    ],
  },
  {
    label: 'Example: SEARCH text not in the file',
    reply: [
      'Rename the parameter:',
      '',
      ...block(['def greet(person):', '    print("Hello, " + person)'], ['def greet(who):', '    print("Hello, " + who)']),
    ],
  },
  {
    label: 'Example: ambiguous SEARCH text',
    reply: [
      'Capitalise names:',
      '',
      ...block(['    name = name.strip()'], ['    name = name.strip().title()']),
    ],
  },
  {
    label: 'Example: a reply that was cut off',
    reply: ['src/app.py', `${fence}python`, '<<<<<<< SEARCH', 'def farewell(name):', '=======', 'def farewell(name: str'],
  },
  {
    label: 'Example: whole-file rewrite',
    reply: [
      'Here is the whole file:',
      '',
      'src/app.py',
      `${fence}python`,
      '"""Greets people."""',
      '',
      '',
      'def greet(name: str) -> None:',
      '    print(f"Hello, {name.strip()}!")',
      '',
      '',
      'if __name__ == "__main__":',
      '    greet("world")',
      fence,
    ],
  },
  {
    label: 'Example: a unified diff with wrong numbers and a lost space',
    reply: [
      'Capitalise the greeting:',
      '',
      `${fence}diff`,
      '--- a/src/app.py',
      '+++ b/src/app.py',
      '@@ -14,3 +14,3 @@',
      ' def greet(name):',
      '    name = name.strip()',
      '-    print("Hello, " + name)',
      '+    print("Hello, " + name.title())',
      fence,
    ],
  },
  {
    label: 'Example: a unified diff GNU patch would misapply',
    // Two look-alike functions and a wrong line number: with fuzz 2, patch
    // drops the two top context lines and edits `net` instead of `gross`.
    path: 'src/prices.py',
    file: [
      'import math',
      '',
      'def net(amount):',
      '    value = amount * 1.0',
      '    return round(value, 2)',
      '',
      'def gross(amount):',
      '    value = amount * 1.0',
      '    return round(value, 2)',
      '',
      'def tax(amount):',
      '    return gross(amount) - net(amount)',
      '',
    ].join('\n'),
    reply: [
      'Add the 20% tax in `gross`:',
      '',
      `${fence}diff`,
      '--- a/src/prices.py',
      '+++ b/src/prices.py',
      '@@ -2,5 +2,5 @@',
      ' ',
      ' def gross(amount):',
      '     value = amount * 1.0',
      '-    return round(value, 2)',
      '+    return round(value * 1.2, 2)',
      ' ',
      fence,
    ],
  },
].map((e) => ({ ...e, reply: e.reply.join('\n') + '\n' }));
