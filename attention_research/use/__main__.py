from attention_research.use.cli import main

main()
