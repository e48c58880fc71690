//! Prints the prompt kit's token costs per format (o200k estimate).
fn main() {
    for f in patchbay::formats::all() {
        if let Some(k) = patchbay::budget::prompts::kit(f.id()) {
            println!(
                "{:<15} instructions {:>4} tokens, with example {:>4} tokens",
                k.format, k.instruction_tokens, k.system_prompt_tokens
            );
        }
    }
}
