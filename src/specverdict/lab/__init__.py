"""What is built before the harness runs, from outside it: the reference models' trainer
(``train``) and the generator of the generated suites' evaluation files and training documents
(``synth``). Nothing in the harness imports this package; it uses the harness through its
public modules like any user."""
