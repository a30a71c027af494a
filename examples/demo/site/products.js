// Fixed catalog of the Acme supplier portal fixture. Stable content: tests
// depend on these values, so append only at the end if you must add rows.
window.ACME_PRODUCTS = [
  { sku: "ACM-1001", name: "Anvil, 50 kg", price: "129.00" },
  { sku: "ACM-1002", name: "Rocket skates", price: "249.50" },
  { sku: "ACM-1003", name: "Giant rubber band", price: "18.75" },
  { sku: "ACM-1004", name: "Portable hole", price: "64.00" },
  { sku: "ACM-1005", name: "Hex bolt M8, box of 100", price: "12.40" },
  { sku: "ACM-1006", name: "Hex bolt M10, box of 50", price: "14.90" },
  { sku: "ACM-1007", name: "Carriage bolt M6, box of 100", price: "9.80" },
  { sku: "ACM-1008", name: "Steel washer M8, box of 200", price: "6.25" },
  { sku: "ACM-1009", name: "Claw hammer", price: "22.00" },
  { sku: "ACM-1010", name: "Sledgehammer, 5 kg", price: "48.00" },
  { sku: "ACM-1011", name: "Bird seed, 10 kg", price: "15.00" },
  { sku: "ACM-1012", name: "Iron bird seed, 5 kg", price: "31.00" },
  { sku: "ACM-1013", name: "Tornado seeds", price: "99.99" },
  { sku: "ACM-1014", name: "Earthquake pills", price: "7.50" },
  { sku: "ACM-1015", name: "Jet-propelled pogo stick", price: "310.00" },
  { sku: "ACM-1016", name: "Spring-powered shoes", price: "89.00" },
  { sku: "ACM-1017", name: "Dehydrated boulders", price: "19.95" },
  { sku: "ACM-1018", name: "Batman outfit", price: "75.00" },
  { sku: "ACM-1019", name: "Instant tunnel paint", price: "28.40" },
  { sku: "ACM-1020", name: "Magnet, extra large", price: "199.00" },
  { sku: "ACM-1021", name: "Do-it-yourself tornado kit", price: "149.00" },
  { sku: "ACM-1022", name: "Rocket sled", price: "540.00" },
  { sku: "ACM-1023", name: "Glue, super strength", price: "4.99" }
];
