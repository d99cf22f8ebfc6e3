// Every RUN line of umac's own lit suites whose umac-opt command and input use only upstream
// dialects and passes, run through mlir-opt and umac-opt alike (the rest name umac's passes).
// RUN: %compare --lit-runs %umac_root/test/lit %umac_root/targets
